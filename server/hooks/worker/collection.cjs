'use strict';
// PocketBase's collection model on the hook's side, as migrations and hooks use it: `new Collection({...})`
// (PocketBase's JSON shape: fields, indexes, rules, auth options), `collection.fields` (a FieldsList:
// `add`, `addAt`, `removeById`, `removeByName`, `getById`, `getByName`, `fieldNames`), the field classes
// (`new TextField({...})` and every other type PocketBase has, `new Field({type, ...})`), and
// `unmarshal(data, target)`. Nothing is validated here: `$app.save(collection)` sends the collection's
// JSON to the host, where Deskbase's own collection code (the schema import's, core/transfer/
// schema-import.ts, over core/collections-input.ts) validates and stores it, and answers it as stored.

/** PocketBase's field types and the options each carries (core/field_*.go), with their zero values. */
const FIELD_OPTIONS = {
  text: { autogeneratePattern: '', max: 0, min: 0, pattern: '', primaryKey: false, required: false },
  number: { max: null, min: null, onlyInt: false, required: false },
  bool: { required: false },
  email: { exceptDomains: null, onlyDomains: null, required: false },
  url: { exceptDomains: null, onlyDomains: null, required: false },
  editor: { convertURLs: false, maxSize: 0, required: false },
  date: { max: '', min: '', required: false },
  autodate: { onCreate: false, onUpdate: false },
  select: { maxSelect: 0, required: false, values: null },
  file: { maxSelect: 0, maxSize: 0, mimeTypes: null, protected: false, required: false, thumbs: null },
  relation: { cascadeDelete: false, collectionId: '', maxSelect: 0, minSelect: 0, required: false },
  json: { maxSize: 0, required: false },
  password: { cost: 0, max: 0, min: 0, pattern: '', required: false },
  geoPoint: { required: false },
};
const CLASS_NAMES = {
  text: 'TextField', number: 'NumberField', bool: 'BoolField', email: 'EmailField', url: 'URLField', editor: 'EditorField',
  date: 'DateField', autodate: 'AutodateField', select: 'SelectField', file: 'FileField', relation: 'RelationField',
  json: 'JSONField', password: 'PasswordField', geoPoint: 'GeoPointField',
};

const isPlain = (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

let CRC_TABLE = null;
/** CRC-32 (IEEE) of a text's UTF-8 bytes: PocketBase's default field id is `<type><crc32(name)>`. */
function crc32(text) {
  if (CRC_TABLE === null) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of Buffer.from(String(text), 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return String((crc ^ 0xffffffff) >>> 0);
}

/** A field: its JSON is its own properties (`type` included), as PocketBase exports it. */
class Field {
  constructor(data) {
    const given = isPlain(data) ? clone(data) : {};
    if (new.target === Field) {
      // `new Field({type, ...})`: the field class of that type (PocketBase's automigrate templates write these)
      const Type = FIELD_CLASSES[given.type];
      if (!Type) throw new Error(`new Field(): unknown field type ${JSON.stringify(given.type)}`);
      return new Type(given);
    }
    const type = this.constructor.fieldType;
    Object.assign(this, { hidden: false, id: '', name: '', presentable: false, system: false }, clone(FIELD_OPTIONS[type]), given, { type });
  }
  getId() { return this.id; }
  setId(id) { this.id = String(id); }
  getName() { return this.name; }
  setName(name) { this.name = String(name); }
  getSystem() { return this.system; }
  setSystem(v) { this.system = Boolean(v); }
  getHidden() { return this.hidden; }
  setHidden(v) { this.hidden = Boolean(v); }
}

const FIELD_CLASSES = {};
for (const [type, className] of Object.entries(CLASS_NAMES)) {
  const cls = { [className]: class extends Field {} }[className];
  cls.fieldType = type;
  FIELD_CLASSES[type] = cls;
}

/** A field object (a class instance, or plain JSON with a `type`) as a field of its class. */
function toField(value) {
  if (value instanceof Field) return value;
  if (!isPlain(value)) throw new TypeError('a field must be an object such as new TextField({...})');
  // `boolean` is PocketBase's older name of `bool`; an unknown type stays as given and is refused where it is saved
  const type = value.type === 'boolean' ? 'bool' : value.type;
  const Type = FIELD_CLASSES[type];
  if (!Type) return Object.assign(Object.create(Field.prototype), clone(value));
  return new Type(value);
}

/** PocketBase's FieldsList: an array of fields with its lookup and replace methods. */
class FieldsList extends Array {
  static get [Symbol.species]() {
    return Array;
  }
  static of(list) {
    const out = new FieldsList();
    for (const f of list ?? []) out.push(toField(f));
    return out;
  }
  getById(id) {
    return this.find((f) => f.id === id) ?? null;
  }
  getByName(name) {
    return this.find((f) => f.name === name) ?? null;
  }
  fieldNames() {
    return this.map((f) => f.name);
  }
  asMap() {
    return Object.fromEntries(this.map((f) => [f.name, f]));
  }
  removeById(id) {
    const i = this.findIndex((f) => f.id === id);
    if (i !== -1) this.splice(i, 1);
  }
  removeByName(name) {
    const i = this.findIndex((f) => f.name === name);
    if (i !== -1) this.splice(i, 1);
  }
  /** Adds fields at the end, each replacing in place the field of its id (or, given without an id, of its name). */
  add(...fields) {
    for (const f of fields) this._put(-1, toField(f));
  }
  /** Inserts fields at `pos`, each moving there the field of its id (or name) it replaces. */
  addAt(pos, ...fields) {
    let at = Number(pos);
    for (const f of fields) {
      this._put(at, toField(f));
      at++;
    }
  }
  addMarshaledJSON(raw) {
    const data = JSON.parse(String(raw));
    this.add(...(Array.isArray(data) ? data : [data]));
  }
  addMarshaledJSONAt(pos, raw) {
    const data = JSON.parse(String(raw));
    this.addAt(pos, ...(Array.isArray(data) ? data : [data]));
  }
  // as PocketBase's FieldsList.add (core/fields_list.go)
  _put(pos, field) {
    const inPlace = pos < 0;
    let at = inPlace ? this.length : Math.min(Math.max(0, pos), this.length);
    let byName = false;
    if (!field.id) {
      byName = true;
      const base = `${field.type}${crc32(field.name)}`;
      let id = base;
      for (let i = 2; i < 1000 && this.getById(id) !== null; i++) id = `${base}${i}`;
      field.id = id;
    }
    const i = this.findIndex((f) => (byName ? field.name !== '' && f.name === field.name : f.id === field.id));
    if (i !== -1) {
      if (byName) field.id = this[i].id;
      if (inPlace) {
        this[i] = field;
        return;
      }
      this.splice(i, 1);
      at = Math.min(at, this.length);
    }
    this.splice(at, 0, field);
  }
}

const INDEX_NAME = /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?[`"'[]?([^`"'\]\s(]+)/i;
const indexName = (idx) => (typeof idx === 'string' ? (INDEX_NAME.exec(idx)?.[1] ?? '') : isPlain(idx) ? String(idx.name ?? '') : '');

/** A collection as PocketBase's JSVM gives it: its JSON's keys as properties, `fields` a FieldsList. */
class Collection {
  constructor(data) {
    this.id = '';
    this.name = '';
    this.type = 'base';
    this.system = false;
    this.fields = new FieldsList();
    this.indexes = [];
    this.listRule = null;
    this.viewRule = null;
    this.createRule = null;
    this.updateRule = null;
    this.deleteRule = null;
    if (data !== undefined && data !== null) unmarshal(data, this);
  }
  isAuth() { return this.type === 'auth'; }
  isBase() { return this.type === 'base'; }
  isView() { return this.type === 'view'; }
  tableName() { return this.name; }
  /** The field named `name`, or null (the same as `fields.getByName`). */
  fieldByName(name) { return this.fields.getByName(name); }
  /** Adds (or replaces) the index `name`, written as PocketBase's AddIndex writes it. */
  addIndex(name, unique, columnsExpr, optWhereExpr) {
    this.removeIndex(name);
    this.indexes.push(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX \`${name}\` ON \`${this.name}\` (${columnsExpr})${optWhereExpr ? ` WHERE ${optWhereExpr}` : ''}`);
  }
  removeIndex(name) {
    this.indexes = this.indexes.filter((idx) => indexName(idx).toLowerCase() !== String(name).toLowerCase());
  }
  getIndex(name) {
    return this.indexes.find((idx) => indexName(idx).toLowerCase() === String(name).toLowerCase()) ?? '';
  }
}

/**
 * PocketBase's `unmarshal(data, target)`: `data` (an object, or its JSON text) onto `target` as Go's
 * json.Unmarshal would: keys given replace the target's, nested objects merge key by key, lists are
 * replaced (a collection's `fields` become fields of their classes). A record (anything with `load`)
 * takes the data through `load`.
 */
function unmarshal(data, target) {
  const value = typeof data === 'string' ? JSON.parse(data) : clone(data);
  if (!isPlain(value)) throw new TypeError('unmarshal(data, target): data must be an object');
  if (target === null || typeof target !== 'object') throw new TypeError('unmarshal(data, target): target must be an object');
  if (!(target instanceof Collection) && !(target instanceof Field) && typeof target.load === 'function') {
    target.load(value);
    return target;
  }
  merge(value, target, target instanceof Collection);
  if (target instanceof Field && target.constructor.fieldType) target.type = target.constructor.fieldType;
  return target;
}

function merge(from, into, isCollection) {
  for (const [key, v] of Object.entries(from)) {
    if (isCollection && key === 'fields') into.fields = FieldsList.of(Array.isArray(v) ? v : []);
    else if (isPlain(v) && isPlain(into[key])) merge(v, into[key], false);
    else into[key] = v;
  }
}

exports.install = (g) => {
  Object.assign(g, { Collection, Field, unmarshal, ...Object.fromEntries(Object.values(FIELD_CLASSES).map((c) => [c.name, c])) });
};
exports.Collection = Collection;
exports.Field = Field;
exports.FieldsList = FieldsList;
exports.FIELD_CLASSES = FIELD_CLASSES;
exports.unmarshal = unmarshal;
exports.crc32 = crc32;
