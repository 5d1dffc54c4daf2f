// The one owner of sending mail. With `smtp.enabled` a message goes through the configured SMTP server
// (nodemailer, with connection, greeting and socket timeouts); otherwise it is kept in the outbox, the
// `_mails` table (the newest OUTBOX_KEEP), listed for superusers by `GET /api/mails` so that a local
// developer can verify an account or reset a password without any mail server. A message whose send
// fails is kept there too (status `failed`, with the error) and reported: never discarded silently.
// Sent messages are not kept (their links are credentials).
import type { CoreEnv } from '../env.js';
import type { Settings } from '../settings.js';
import { isoNow, newId } from '../ids.js';

/** How many messages the outbox keeps (the newest). */
export const OUTBOX_KEEP = 200;
/** SMTP timeouts: connecting, the server's greeting, and any silence on the socket after that. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

export interface MailMessage {
  to: string;
  subject: string;
  html: string;
}

export interface StoredMail {
  id: string;
  created: string;
  /** `outbox`: SMTP is off; `failed`: the SMTP server did not take it (see `error`). */
  status: 'outbox' | 'failed';
  from: string;
  to: string;
  subject: string;
  html: string;
  error: string;
}

export function createMailer(env: Pick<CoreEnv, 'store' | 'report' | 'now' | 'events'>, timeouts = SMTP_TIMEOUTS) {
  const { store, report, now, events } = env;

  async function keep(mail: Omit<StoredMail, 'id' | 'created'>): Promise<void> {
    await store.write(async (tx) => {
      await tx.run(
        'INSERT INTO "_mails" ("id","created","status","from","to","subject","html","error") VALUES (?,?,?,?,?,?,?,?)',
        [newId(), isoNow(now()), mail.status, mail.from, mail.to, mail.subject, mail.html, mail.error],
      );
      // bounded: what falls past the newest OUTBOX_KEEP goes (a NULL bound while fewer are kept deletes nothing)
      await tx.run(`DELETE FROM "_mails" WHERE "created" < (SELECT "created" FROM "_mails" ORDER BY "created" DESC, "id" DESC LIMIT 1 OFFSET ${OUTBOX_KEEP - 1})`);
    });
  }

  async function viaSmtp(settings: Settings, message: MailMessage): Promise<void> {
    const { smtp, meta } = settings;
    // loaded on the first message through SMTP, not with the server: most never send one (the outbox)
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      // PocketBase: tls = implicit TLS; otherwise STARTTLS when the server offers it
      secure: smtp.tls,
      ...(smtp.username !== '' ? { auth: { user: smtp.username, pass: smtp.password, method: smtp.authMethod || 'PLAIN' } } : {}),
      ...(smtp.localName !== '' ? { name: smtp.localName } : {}),
      ...timeouts,
    });
    try {
      await transport.sendMail({ from: { name: meta.senderName, address: meta.senderAddress }, to: message.to, subject: message.subject, html: message.html });
    } finally {
      transport.close();
    }
  }

  return {
    /**
     * Sends `message` (or keeps it in the outbox when SMTP is off). Throws only when the SMTP server
     * refused it; the message is then kept as `failed` first, and the failure reported.
     */
    async send(settings: Settings, message: MailMessage): Promise<'sent' | 'outbox'> {
      if (!events.has('onMailerSend')) return sendOne(settings, message);
      // onMailerSend hooks (core/events.ts) see PocketBase's mailer.Message and may change it before e.next()
      let outcome: 'sent' | 'outbox' = 'outbox';
      const shown = { from: { address: settings.meta.senderAddress, name: settings.meta.senderName }, to: [{ address: message.to, name: '' }], subject: message.subject, html: message.html, text: '', headers: {}, cc: [], bcc: [] };
      const r = await events.trigger('onMailerSend', { message: shown }, {}, async (p) => {
        const m = (p.message ?? shown) as typeof shown;
        const to = (Array.isArray(m.to) ? m.to : []).map((t) => String(t?.address ?? '')).filter((a) => a !== '');
        for (const address of to) outcome = await sendOne(settings, { to: address, subject: String(m.subject ?? ''), html: String(m.html || m.text || '') });
        return p;
      });
      return r.ran ? outcome : 'outbox';
    },

    /** The kept messages, newest first. */
    list(): Promise<StoredMail[]> {
      return store.all<StoredMail>('SELECT * FROM "_mails" ORDER BY "created" DESC, "id" DESC');
    },
  };

  /** One message to one address: SMTP, or the outbox while SMTP is off. */
  async function sendOne(settings: Settings, message: MailMessage): Promise<'sent' | 'outbox'> {
    const from = `${settings.meta.senderName} <${settings.meta.senderAddress}>`;
    if (!settings.smtp.enabled) {
      await keep({ status: 'outbox', from, ...message, error: '' });
      return 'outbox';
    }
    try {
      await viaSmtp(settings, message);
      return 'sent';
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await keep({ status: 'failed', from, ...message, error: error.slice(0, 1000) });
      report(new Error(`Failed to send an e-mail to ${message.to} (kept in the outbox): ${error}`));
      throw err;
    }
  }
}

export type Mailer = ReturnType<typeof createMailer>;
