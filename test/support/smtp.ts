// A real SMTP server on loopback (the smtp-server package) that keeps what it receives, for the e-mail
// tests; and a socket that accepts and never greets (an SMTP server that hangs).
import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import { expect } from 'vitest';
import { probePort } from '../../server/http/listener.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  /** The HTML part, transfer encoding undone. */
  html: string;
  raw: string;
}

export interface Smtp {
  port: number;
  received: ReceivedMail[];
  /** Logins the server accepted (user names). */
  logins: string[];
  close(): Promise<void>;
}

/** Quoted-printable or base64 body text back to UTF-8. */
function decodeBody(headers: string, body: string): string {
  if (/content-transfer-encoding:\s*base64/i.test(headers)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const subject = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  return { from, to, subject, html: decodeBody(headers, raw.slice(split + 4)).trim(), raw };
}

/**
 * `users`: accepted logins (user → password); without it any client may send unauthenticated.
 * `accept`: what a message waits for once received, before the server answers that it took it.
 */
export async function startSmtp(users?: Record<string, string>, accept?: (mail: ReceivedMail) => Promise<void>): Promise<Smtp> {
  const received: ReceivedMail[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    disabledCommands: users ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !users,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (users && users[auth.username ?? ''] === auth.password) {
        logins.push(auth.username ?? '');
        callback(null, { user: auth.username });
      } else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const mail = parse(Buffer.concat(chunks).toString('utf8'), session.envelope.mailFrom ? session.envelope.mailFrom.address : '', session.envelope.rcptTo.map((r) => r.address));
        received.push(mail);
        if (accept) void accept(mail).then(() => callback(), (err: Error) => callback(err));
        else callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as net.AddressInfo).port;
  return { port, received, logins, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A port that accepts connections and says nothing (an SMTP server that hangs before its greeting). */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (connection refused). */
export async function closedPort(): Promise<number> {
  return (await probePort('127.0.0.1', 0)) ?? Promise.reject(new Error('no free loopback port'));
}

/** Waits (bounded) until `check` passes: mails are sent after the request's answer. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** The token in a mail's link `…/_/#/auth/<action>/<token>`. */
export function tokenIn(html: string, action: string): string {
  const m = new RegExp(`/_/#/auth/${action}/([A-Za-z0-9_.-]+)`).exec(html);
  expect(m, `a ${action} link in: ${html}`).not.toBeNull();
  return (m as RegExpExecArray)[1];
}
