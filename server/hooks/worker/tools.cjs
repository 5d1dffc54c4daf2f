'use strict';
// console.*, sleep, $os, $security, $http, $mails / MailerMessage: PocketBase's JSVM helpers. What can be
// done on this thread is (hashes, random strings, JWTs, files); outbound HTTP and mail go to the host.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const { Record } = require('./record.cjs');

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomStringWithAlphabet(length, alphabet) {
  const n = Math.max(0, Math.trunc(Number(length) || 0));
  const chars = [...String(alphabet)];
  if (chars.length === 0) return '';
  let out = '';
  for (let i = 0; i < n; i++) out += chars[crypto.randomInt(chars.length)];
  return out;
}

const b64url = (buf) => Buffer.from(buf).toString('base64url');

function createJWT(payload, signingKey, secDuration) {
  const header = { alg: 'HS256', typ: 'JWT' };
  const claims = { ...payload };
  const seconds = Number(secDuration) || 0;
  if (seconds > 0) claims.exp = Math.floor(Date.now() / 1000) + seconds;
  const body = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${body}.${b64url(crypto.createHmac('sha256', String(signingKey)).update(body).digest())}`;
}

function parseUnverifiedJWT(token) {
  const parts = String(token).split('.');
  if (parts.length !== 3) throw new Error('token is malformed');
  try {
    return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new Error('token is malformed');
  }
}

function parseJWT(token, verificationKey) {
  const parts = String(token).split('.');
  if (parts.length !== 3) throw new Error('token is malformed');
  let header;
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
  } catch {
    throw new Error('token is malformed');
  }
  if (header.alg !== 'HS256') throw new Error('token signing method is invalid');
  const expected = crypto.createHmac('sha256', String(verificationKey)).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw new Error('token signature is invalid');
  const claims = parseUnverifiedJWT(token);
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp === 'number' && now >= claims.exp) throw new Error('token has invalid claims: token is expired');
  if (typeof claims.nbf === 'number' && now < claims.nbf) throw new Error('token has invalid claims: token is not valid yet');
  return claims;
}

/** PocketBase's security.Encrypt: AES-256-GCM, key of 32 bytes, nonce prepended, std base64. */
function encrypt(data, key) {
  const k = Buffer.from(String(key));
  if (k.length !== 32) throw new Error('crypto/aes: invalid key size (the key must be 32 characters)');
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', k, nonce);
  const out = Buffer.concat([cipher.update(Buffer.from(String(data))), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([nonce, out]).toString('base64');
}

function decrypt(text, key) {
  const k = Buffer.from(String(key));
  if (k.length !== 32) throw new Error('crypto/aes: invalid key size (the key must be 32 characters)');
  const raw = Buffer.from(String(text), 'base64');
  if (raw.length < 28) throw new Error('cipher: message authentication failed');
  const decipher = crypto.createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  try {
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('cipher: message authentication failed');
  }
}

class MailerMessage {
  constructor(data) {
    this.from = { address: '', name: '' };
    this.to = [];
    this.bcc = [];
    this.cc = [];
    this.subject = '';
    this.html = '';
    this.text = '';
    this.headers = {};
    Object.assign(this, data ?? {});
  }
}

exports.install = (g, rt) => {
  const text = (args) => args.map((a) => (typeof a === 'string' ? a : util.inspect(a, { depth: 4 }))).join(' ');
  g.console = {
    log: (...a) => rt.log('INFO', text(a)),
    info: (...a) => rt.log('INFO', text(a)),
    debug: (...a) => rt.log('DEBUG', text(a)),
    warn: (...a) => rt.log('WARN', text(a)),
    error: (...a) => rt.log('ERROR', text(a)),
    trace: (...a) => rt.log('DEBUG', text(a)),
  };
  const sleepCell = new Int32Array(new SharedArrayBuffer(4));
  g.sleep = (ms) => {
    Atomics.wait(sleepCell, 0, 0, Math.max(0, Number(ms) || 0));
  };
  g.$security = {
    randomString: (n) => randomStringWithAlphabet(n, ALPHANUMERIC),
    randomStringWithAlphabet,
    pseudorandomString: (n) => randomStringWithAlphabet(n, ALPHANUMERIC),
    pseudorandomStringWithAlphabet: randomStringWithAlphabet,
    randomStringByRegex: () => {
      throw new Error('$security.randomStringByRegex is not supported by Deskbase yet');
    },
    md5: (s) => crypto.createHash('md5').update(String(s)).digest('hex'),
    sha256: (s) => crypto.createHash('sha256').update(String(s)).digest('hex'),
    sha512: (s) => crypto.createHash('sha512').update(String(s)).digest('hex'),
    hs256: (s, secret) => crypto.createHmac('sha256', String(secret)).update(String(s)).digest('hex'),
    hs512: (s, secret) => crypto.createHmac('sha512', String(secret)).update(String(s)).digest('hex'),
    equal: (a, b) => {
      const x = Buffer.from(String(a));
      const y = Buffer.from(String(b));
      return x.length === y.length && crypto.timingSafeEqual(x, y);
    },
    createJWT,
    parseUnverifiedJWT,
    parseJWT,
    encrypt,
    decrypt,
  };
  g.$os = {
    getenv: (name) => process.env[String(name)] ?? '',
    readFile: (file) => [...fs.readFileSync(path.resolve(rt.dir, String(file)))],
    readDir: (dir) =>
      fs.readdirSync(path.resolve(rt.dir, String(dir)), { withFileTypes: true }).map((d) => ({ name: () => d.name, isDir: () => d.isDirectory(), type: () => (d.isDirectory() ? 'dir' : 'file') })),
    writeFile: (file, data) => fs.writeFileSync(path.resolve(rt.dir, String(file)), typeof data === 'string' ? data : Buffer.from(data)),
    stat: (file) => {
      const s = fs.statSync(path.resolve(rt.dir, String(file)));
      return { name: () => path.basename(String(file)), size: () => s.size, isDir: () => s.isDirectory(), modTime: () => s.mtime };
    },
    mkdir: (dir) => fs.mkdirSync(path.resolve(rt.dir, String(dir))),
    mkdirAll: (dir) => fs.mkdirSync(path.resolve(rt.dir, String(dir)), { recursive: true }),
    remove: (file) => fs.rmSync(path.resolve(rt.dir, String(file))),
    removeAll: (file) => fs.rmSync(path.resolve(rt.dir, String(file)), { recursive: true, force: true }),
    tempDir: () => require('node:os').tmpdir(),
    exit: () => {
      throw new Error('$os.exit is not allowed in Deskbase hooks (stop the server instead)');
    },
  };
  /**
   * $http.send({ url, method, body, headers, timeout }): outbound HTTP on the host, at most `timeout`
   * seconds (120 by default, as PocketBase); answers { statusCode, headers, cookies, body (bytes), json }.
   */
  g.$http = {
    send: (config) => {
      const c = config ?? {};
      const res = rt.call('http.send', [{ url: String(c.url ?? ''), method: String(c.method ?? 'GET').toUpperCase(), body: c.body === undefined ? '' : typeof c.body === 'string' ? c.body : JSON.stringify(c.body), headers: c.headers ?? {}, timeout: Number(c.timeout) || 120 }]);
      let json = null;
      try {
        json = JSON.parse(res.raw);
      } catch {
        /* not JSON */
      }
      return { statusCode: res.statusCode, headers: res.headers, cookies: res.cookies ?? {}, body: [...Buffer.from(res.raw)], raw: res.raw, json };
    },
  };
  g.MailerMessage = MailerMessage;
  // PocketBase's toString(): bytes (an array of numbers, $os.readFile's) or any value as text
  g.toString = (value, maxBytes) => {
    let out;
    if (Array.isArray(value) || value instanceof Uint8Array) out = Buffer.from(value).toString('utf8');
    else if (value === null || value === undefined) out = '';
    else if (typeof value === 'object') out = JSON.stringify(value);
    else out = String(value);
    return maxBytes > 0 ? Buffer.from(out).subarray(0, maxBytes).toString('utf8') : out;
  };
  const send = (message) => rt.call('mail.send', [{ ...message }]);
  rt.app.newMailClient = () => ({ send });
  // PocketBase's $mails (mails/record.go): the account e-mails of a saved auth record, from its
  // collection's templates, with their tokens: core/account-mail.ts makes and sends them (host op mail.record)
  const recordMail = (name, record, mail) => {
    const c = record && typeof record.collection === 'function' ? record.collection() : null;
    if (!c || !c.id) throw new TypeError(`$mails.${name}: the second argument must be a Record`);
    if (record.isNew()) throw new Error(`$mails.${name}: the record must be saved first`);
    rt.call('mail.record', [c.id, String(record.id), mail]);
  };
  g.$mails = {
    sendRecordPasswordReset: (_app, record) => recordMail('sendRecordPasswordReset', record, { kind: 'passwordReset' }),
    sendRecordVerification: (_app, record) => recordMail('sendRecordVerification', record, { kind: 'verification' }),
    sendRecordChangeEmail: (_app, record, newEmail) => recordMail('sendRecordChangeEmail', record, { kind: 'emailChange', newEmail: String(newEmail ?? '') }),
    sendRecordOTP: (_app, record, otpId, pass) => recordMail('sendRecordOTP', record, { kind: 'otp', otpId: String(otpId ?? ''), password: String(pass ?? '') }),
    // (newer PocketBase versions pass the alert's info as a third argument)
    sendRecordAuthAlert: (_app, record, info) => recordMail('sendRecordAuthAlert', record, { kind: 'authAlert', info: info === undefined ? 'a sign-in from a hook' : String(info) }),
  };

  rt.eventMakers.push({
    make(event, e, p) {
      if (event === 'onMailerSend' && p.message) e.message = new MailerMessage(p.message);
    },
    export(event, e, out) {
      if (event === 'onMailerSend' && e.message) out.message = { ...e.message };
    },
    apply(event, e, p) {
      if (event === 'onMailerSend' && p.message) e.message = new MailerMessage(p.message);
    },
  });
  void Record;
};
