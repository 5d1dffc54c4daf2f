// An auth collection's e-mail templates made into a message (PocketBase's mails/record.go):
// `{APP_NAME}`, `{APP_URL}` (meta.appURL, without a trailing slash), `{TOKEN}` and `{RECORD:<field>}`
// (a field the record shows: never the password hash or the token key). Values are HTML-escaped in
// the body; the subject is plain text.
import type { Settings } from '../settings.js';
import type { EmailTemplate, Collection, Row } from '../../model/types.js';
import type { MailMessage } from './mailer.js';

const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const NEVER = new Set(['password', 'tokenKey']);

function recordValue(c: Collection, record: Row, name: string): string | undefined {
  const field = c.fields.find((f) => f.name === name);
  if (!field || field.hidden || NEVER.has(name)) return undefined;
  const v = record[name];
  if (v === null || v === undefined) return '';
  if (field.type === 'bool') return Number(v) === 1 ? 'true' : 'false';
  return typeof v === 'string' ? v : String(v);
}

export function resolveTemplate(template: EmailTemplate, settings: Settings, c: Collection, record: Row, to: string, placeholders: Record<string, string>): MailMessage {
  const values: Record<string, string> = {
    APP_NAME: settings.meta.appName,
    APP_URL: settings.meta.appURL.replace(/\/+$/, ''),
    ...placeholders,
  };
  const fill = (text: string, escape: boolean) =>
    text.replace(/\{(RECORD:)?([A-Za-z0-9_]+)\}/g, (whole, isRecord: string | undefined, name: string) => {
      const v = isRecord ? recordValue(c, record, name) : values[name];
      if (v === undefined) return whole;
      // the token goes into a link as it is (base64 and dots only)
      return escape && name !== 'TOKEN' ? escapeHtml(v) : v;
    });
  return { to, subject: fill(template.subject, false), html: fill(template.body, true) };
}
