// The host side of $http.send and of mail from hooks ($app.newMailClient().send, MailerMessage).
import { ApiError, badRequest } from '../errors.js';
import type { Core } from '../core/index.js';
import type { HostOps } from './runtime.js';
import type { RecordMail } from '../core/account-mail.js';
import { hookCollection } from './app-ops.js';
import { timerDelayMs } from '../core/writes/hook-files.js';

/** What one $http.send may read back (PocketBase reads the whole body; a bound keeps the host whole). */
const HTTP_MAX_BYTES = 32 * 1024 * 1024;

interface SendConfig {
  url: string;
  method: string;
  body: string;
  headers: Record<string, string>;
  /** Seconds. */
  timeout: number;
}

interface MailerMessage {
  from?: { address?: string; name?: string };
  to?: { address?: string; name?: string }[];
  cc?: unknown[];
  bcc?: unknown[];
  subject?: string;
  html?: string;
  text?: string;
  attachments?: unknown;
}

export function toolOps(core: Core): HostOps {
  return {
    'http.send': async (_ctx, c: SendConfig) => {
      let url: URL;
      try {
        url = new URL(c.url);
      } catch {
        throw badRequest(`$http.send: invalid url "${c.url}".`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`$http.send: only http and https URLs (got ${url.protocol}).`);
      const res = await fetch(url, {
        method: c.method,
        headers: c.headers,
        body: c.method === 'GET' || c.method === 'HEAD' || c.body === '' ? undefined : c.body,
        signal: AbortSignal.timeout(timerDelayMs(Math.max(1, c.timeout))),
        redirect: 'follow',
      }).catch((err: Error) => {
        throw new ApiError(400, `$http.send ${c.method} ${url.origin}: ${err.name === 'TimeoutError' ? `no answer within ${c.timeout} s` : err.message}.`);
      });
      const length = Number(res.headers.get('content-length') ?? 0);
      if (length > HTTP_MAX_BYTES) throw badRequest(`$http.send: the answer is larger than ${HTTP_MAX_BYTES} bytes.`);
      const raw = await res.text();
      const headers: Record<string, string[]> = {};
      res.headers.forEach((v, k) => {
        headers[k.replace(/(^|-)([a-z])/g, (_m, d: string, ch: string) => d + ch.toUpperCase())] = [v];
      });
      return { statusCode: res.status, headers, raw };
    },
    // $mails.sendRecord*(app, record, ...): core/account-mail.ts's templates and tokens, in the hook's write if it runs in one
    'mail.record': async (ctx, collection: string, recordId: string, mail: RecordMail) => {
      await core.accountMail.sendRecordMail(hookCollection(core, collection), recordId, mail, ctx.scope);
      return null;
    },
    'mail.send': async (ctx, m: MailerMessage) => {
      const to = (m.to ?? []).map((t) => t?.address).filter((a): a is string => typeof a === 'string' && a !== '');
      if (to.length === 0) throw badRequest('MailerMessage: "to" needs at least one address.');
      for (const key of ['cc', 'bcc', 'attachments'] as const) {
        const v = m[key];
        if (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0)) {
          throw badRequest(`MailerMessage.${key} is not supported by Deskbase yet.`);
        }
      }
      const settings = await core.settings.get();
      const from = m.from?.address ?? '';
      if (from !== '' && from !== settings.meta.senderAddress) {
        throw badRequest(`MailerMessage.from: Deskbase sends as the settings' sender address (${settings.meta.senderAddress}), not ${from}.`);
      }
      for (const address of to) {
        // a hook stopped past its time limit while a mail went out sends no more of them: its request
        // was answered that it was stopped (EventScope.stopped)
        ctx.scope.stopped?.throwIfAborted();
        await core.mailer.send(settings, { to: address, subject: String(m.subject ?? ''), html: String(m.html || m.text || '') });
      }
      return null;
    },
  };
}
