'use strict';
// `Record` and `Collection` as hooks see them (PocketBase's core.Record / core.Collection, mapped to
// lowerCamelCase methods as its JSVM does), and the conversions of records and collections across the
// bridge: a record travels as `{ collection: <collection JSON>, data: {...}, original?: {...},
// password?: <plain text set by setPassword> }` (wire form, see server/hooks/contract.ts).

// the collection model (fields list, field classes, unmarshal) is collection.cjs's, shared with migrations
const { Collection } = require('./collection.cjs');
// $filesystem files stay themselves in a file field (sent to the host as uploads when saved)
const { HookFile } = require('./filesystem.cjs');

const pad = (n, w = 2) => String(n).padStart(w, '0');
/** PocketBase's DateTime: `string()` is `2006-01-02 15:04:05.000Z`. */
class DateTime {
  constructor(value) {
    this._t = value === undefined || value === '' ? new Date() : new Date(String(value).replace(' ', 'T'));
  }
  isZero() {
    return Number.isNaN(this._t.getTime());
  }
  string() {
    if (this.isZero()) return '';
    const d = this._t;
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
  }
  toString() {
    return this.string();
  }
  toJSON() {
    return this.string();
  }
  time() {
    return this._t;
  }
  unix() {
    return Math.floor(this._t.getTime() / 1000);
  }
  add(ms) {
    return new DateTime(new Date(this._t.getTime() + ms / 1e6).toISOString());
  }
  addDate(years, months, days) {
    const d = new Date(this._t.getTime());
    d.setUTCFullYear(d.getUTCFullYear() + years, d.getUTCMonth() + months, d.getUTCDate() + days);
    return new DateTime(d.toISOString());
  }
  equal(other) {
    return other instanceof DateTime && other._t.getTime() === this._t.getTime();
  }
  before(other) {
    return other instanceof DateTime && this._t.getTime() < other._t.getTime();
  }
  after(other) {
    return other instanceof DateTime && this._t.getTime() > other._t.getTime();
  }
}

const MULTI = (f) => (f.type === 'select' || f.type === 'relation' || f.type === 'file') && Number(f.maxSelect) > 1;

function toStringSlice(v) {
  if (v === null || v === undefined || v === '') return [];
  if (Array.isArray(v)) return [...new Set(v.map((x) => String(x)).filter((x) => x !== ''))];
  if (typeof v === 'string') {
    try {
      const parsed = JSON.parse(v);
      if (Array.isArray(parsed)) return toStringSlice(parsed);
    } catch {
      /* a plain string */
    }
  }
  return [String(v)];
}

function copy(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

let rt = null;

class Record {
  /** `new Record(collection, data?)`: a new record of `collection` (a Collection, as $app.findCollectionByNameOrId gives). */
  constructor(collection, data) {
    const c = collection instanceof Collection ? collection : collection && typeof collection === 'object' ? new Collection(collection) : null;
    Object.defineProperty(this, '_c', { value: c, writable: true, enumerable: false });
    Object.defineProperty(this, '_d', { value: {}, writable: true, enumerable: false });
    Object.defineProperty(this, '_o', { value: null, writable: true, enumerable: false });
    Object.defineProperty(this, '_pw', { value: undefined, writable: true, enumerable: false });
    Object.defineProperty(this, '_hidden', { value: new Set(), writable: true, enumerable: false });
    Object.defineProperty(this, '_extra', { value: {}, writable: true, enumerable: false });
    Object.defineProperty(this, '_custom', { value: false, writable: true, enumerable: false });
    if (c) for (const f of c.fields) if (f.type !== 'password') this._d[f.name] = zero(f);
    if (data && typeof data === 'object') this.load(data);
  }
  get id() {
    return this._d.id ?? '';
  }
  set id(v) {
    this._d.id = String(v);
  }
  collection() {
    return this._c;
  }
  tableName() {
    return this._c?.name ?? '';
  }
  isNew() {
    return this._o === null;
  }
  /** Sets every key of `data` (as `set` does). */
  load(data) {
    for (const [k, v] of Object.entries(data)) this.set(k, v);
  }
  get(key) {
    if (key in this._d) return this._d[key];
    return this._extra[key];
  }
  set(key, value) {
    const field = this._c?.fieldByName(key);
    if (field?.type === 'password') return this.setPassword(value);
    if (field) {
      // PocketBase's modifiers: "field+" appends, "+field" prepends, "field-" removes
      this._d[key] = normalize(field, value);
      return;
    }
    const m = /^(\+)?([^+-]+)([+-])?$/.exec(key);
    const target = m && this._c?.fieldByName(m[2]);
    if (target && (m[1] || m[3])) {
      const current = this._d[target.name];
      if (target.type === 'number') {
        const n = Number(value) || 0;
        this._d[target.name] = (Number(current) || 0) + (m[3] === '-' ? -n : n);
      } else {
        const list = (target.type === 'file' && fileItems(current)) || toStringSlice(current);
        const add = (target.type === 'file' && fileItems(value)) || toStringSlice(value);
        const next = m[3] === '-' ? list.filter((x) => !add.includes(x)) : m[1] ? [...add, ...list] : [...list, ...add];
        this._d[target.name] = normalize(target, next);
      }
      return;
    }
    this._extra[key] = value;
  }
  getString(key) {
    const v = this.get(key);
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }
  getInt(key) {
    const v = this.get(key);
    if (typeof v === 'boolean') return v ? 1 : 0;
    const n = Number(v);
    return Number.isFinite(n) ? Math.trunc(n) : 0;
  }
  getFloat(key) {
    const v = this.get(key);
    if (typeof v === 'boolean') return v ? 1 : 0;
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  }
  getBool(key) {
    const v = this.get(key);
    if (typeof v === 'string') return v === 'true' || v === '1';
    return Boolean(v);
  }
  getStringSlice(key) {
    return toStringSlice(this.get(key));
  }
  getDateTime(key) {
    return new DateTime(this.getString(key) || undefined);
  }
  email() {
    return this.getString('email');
  }
  setEmail(v) {
    this.set('email', v);
  }
  verified() {
    return this.getBool('verified');
  }
  setVerified(v) {
    this.set('verified', Boolean(v));
  }
  emailVisibility() {
    return this.getBool('emailVisibility');
  }
  setEmailVisibility(v) {
    this.set('emailVisibility', Boolean(v));
  }
  /** Sets the password to hash when the record is saved. */
  setPassword(plain) {
    this._pw = String(plain ?? '');
  }
  /** Whether `plain` is this record's password (the one being set, else the stored one). */
  validatePassword(plain) {
    if (this._pw !== undefined) return this._pw === String(plain);
    if (!this._c || this.isNew()) return false;
    return rt.call('record.validatePassword', [this._c.id, this.id, String(plain ?? '')]) === true;
  }
  /** The record as it was loaded (before changes): a copy. */
  original() {
    const r = new Record(this._c);
    r._d = copy(this._o ?? this._d);
    r._o = this._o === null ? null : copy(this._o);
    return r;
  }
  fresh() {
    const r = new Record(this._c);
    r._d = copy(this._d);
    r._o = this._o === null ? null : copy(this._o);
    return r;
  }
  clone() {
    const r = this.fresh();
    r._pw = this._pw;
    r._hidden = new Set(this._hidden);
    r._extra = copy(this._extra);
    r._custom = this._custom;
    return r;
  }
  /** The expanded record of relation `name` (after $app.expandRecord or in an expanded answer), or null. */
  expandedOne(name) {
    const v = this._extra.expand?.[name] ?? this._d.expand?.[name];
    const one = Array.isArray(v) ? v[0] : v;
    return one && typeof one === 'object' ? expandedRecord(one) : null;
  }
  /** The expanded records of relation `name`, or an empty list. */
  expandedAll(name) {
    const v = this._extra.expand?.[name] ?? this._d.expand?.[name];
    return (Array.isArray(v) ? v : v ? [v] : []).filter((x) => x && typeof x === 'object').map(expandedRecord);
  }
  /** Hides fields from the API answer (onRecordEnrich). */
  hide(...names) {
    for (const n of names.flat()) this._hidden.add(String(n));
    return this;
  }
  unhide(...names) {
    for (const n of names.flat()) this._hidden.delete(String(n));
    return this;
  }
  /** Adds a key to the API answer that is not a field (onRecordEnrich): PocketBase's withCustomData + set. */
  withCustomData(on) {
    this._custom = Boolean(on);
    return this;
  }
  /** The record as the public API shows it: no password, no hidden fields, no tokenKey. */
  publicExport() {
    const out = { collectionId: this._c?.id ?? '', collectionName: this._c?.name ?? '' };
    for (const f of this._c?.fields ?? []) {
      if (f.type === 'password' || f.hidden || this._hidden.has(f.name)) continue;
      out[f.name] = copy(this._d[f.name]);
    }
    for (const [k, v] of Object.entries(this._extra)) if (!this._hidden.has(k)) out[k] = copy(v);
    return out;
  }
  toJSON() {
    return this.publicExport();
  }
  /** Unsaved changes: the fields whose value differs from the loaded one. */
  changed() {
    const out = {};
    for (const [k, v] of Object.entries(this._d)) if (this._o === null || JSON.stringify(this._o[k]) !== JSON.stringify(v)) out[k] = v;
    return out;
  }
}

function zero(f) {
  if (MULTI(f)) return [];
  switch (f.type) {
    case 'number':
      return 0;
    case 'bool':
      return false;
    case 'json':
      return null;
    case 'geoPoint':
      return { lon: 0, lat: 0 };
    default:
      return '';
  }
}

function fileItems(v) {
  const list = Array.isArray(v) ? v : v === null || v === undefined || v === '' ? [] : [v];
  if (!list.some((x) => x instanceof HookFile)) return null;
  const out = [];
  for (const x of list) {
    if (x instanceof HookFile) out.push(x);
    else out.push(...toStringSlice(x));
  }
  return out;
}

function normalize(f, v) {
  if (f.type === 'file') {
    const items = fileItems(v);
    if (items) return MULTI(f) ? items : items[items.length - 1];
  }
  if (MULTI(f)) return toStringSlice(v);
  switch (f.type) {
    case 'number': {
      const n = Number(v);
      return Number.isFinite(n) ? n : 0;
    }
    case 'bool':
      return v === true || v === 'true' || v === 1 || v === '1';
    case 'json':
      return v === undefined ? null : copy(v);
    case 'select':
    case 'relation':
    case 'file':
      return Array.isArray(v) ? (v.length > 0 ? String(v[v.length - 1]) : '') : v == null ? '' : String(v);
    case 'date':
    case 'autodate':
      return v instanceof DateTime ? v.string() : v == null ? '' : String(v);
    default:
      return v == null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

/** An expanded record (an API object): its values readable through the Record getters. */
function expandedRecord(api) {
  const r = new Record(new Collection({ id: api.collectionId, name: api.collectionName, fields: [] }));
  r._extra = { ...api };
  r._d = { id: api.id };
  r._o = {};
  return r;
}

/** A record from its wire form. */
function recordFromWire(w) {
  if (!w) return null;
  const r = new Record(w.collection);
  r._d = { ...r._d, ...w.data };
  r._o = w.original === undefined ? copy(w.data) : w.original;
  if (w.isNew) r._o = null;
  if (w.hidden) r._hidden = new Set(w.hidden);
  if (w.extra) r._extra = w.extra;
  if (w.custom) r._custom = true;
  return r;
}

/** A record's wire form (what the host saves or answers). */
function recordToWire(r) {
  if (!(r instanceof Record)) throw new TypeError('expected a Record');
  const w = { collection: r._c, data: copy(r._d), isNew: r.isNew() };
  if (r._pw !== undefined) w.password = r._pw;
  if (r._hidden.size > 0) w.hidden = [...r._hidden];
  if (Object.keys(r._extra).length > 0) w.extra = copy(r._extra);
  if (r._custom === true) w.custom = true;
  if (r._o !== null) w.original = r._o;
  return w;
}

exports.install = (g, runtime) => {
  rt = runtime;
  Object.assign(g, { Record, Collection, DateTime });
  // events: `record`, `collection`, `auth` (and `records` for lists) in the payload become objects
  rt.eventMakers.push({
    make(_event, e, p) {
      if (p.record) e.record = recordFromWire(p.record);
      if (p.collection) e.collection = new Collection(p.collection);
      if (p.auth) e.auth = recordFromWire(p.auth);
      if (Array.isArray(p.records)) e.records = p.records.map(recordFromWire);
      if (p.error) e.error = rt.toError(p.error);
      // a request event's RequestInfo (routes.cjs may replace requestInfo with the full request event's)
      if (p.requestInfo) {
        const info = { ...p.requestInfo, auth: e.auth ?? null };
        e.requestInfo = () => info;
      }
    },
    export(_event, e, out) {
      if (e.record instanceof Record) out.record = recordToWire(e.record);
      if (Array.isArray(e.records)) out.records = e.records.map((r) => (r instanceof Record ? recordToWire(r) : null)).filter(Boolean);
    },
    apply(_event, e, p) {
      if (p.record) e.record = recordFromWire(p.record);
      if (Array.isArray(p.records)) e.records = p.records.map(recordFromWire);
    },
  });
};
Object.assign(exports, { Record, Collection, DateTime, recordFromWire, recordToWire });
