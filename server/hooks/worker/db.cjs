'use strict';
// `$app.db()`, `$dbx`, `DynamicModel` and `arrayOf` on the hook's side: PocketBase's query builder
// (github.com/pocketbase/dbx, as plugins/jsvm binds it), building the same SQL text with `{:pN}`
// parameters, handed to the host through the synchronous bridge (`rt.call('db.query', ...)`), which runs
// it on the store (server/hooks/db.ts: placeholders bound, `{{table}}`/`[[column]]` quoted, budgets).
//
// Expressions build as dbx's do: `hashExp` sorts its keys and writes `"a"={:p0}`, `"a" IS NULL`, or an
// IN list; `and`/`or` wrap each part in parentheses; `in` with one value is `=`, with none `0=1`; `like`
// escapes `\`, `%` and `_` and adds `ESCAPE '\'` (dbx leaves SQLite without it, where the escapes do
// nothing). Parameter names are `p` + the number of parameters so far, as in dbx.

const isExpression = (v) => typeof v === 'object' && v !== null && typeof v.build === 'function';
const nextName = (params) => `p${Object.keys(params).length}`;

function quoteSimple(name) {
  return name.includes('"') || name === '*' ? name : `"${name}"`;
}
function quoteTable(name) {
  if (name.includes('(') || name.includes('{{')) return name;
  return name.split('.').map(quoteSimple).join('.');
}
function quoteColumn(name) {
  if (name.includes('(') || name.includes('{{') || name.includes('[[')) return name;
  const dot = name.lastIndexOf('.');
  return dot === -1 ? quoteSimple(name) : `${quoteTable(name.slice(0, dot))}.${quoteSimple(name.slice(dot + 1))}`;
}
const ALIAS = /(?:\s+as\s+|\s+)([\w\-_.]+)$/i;
function aliased(item, quote) {
  const text = String(item).trim();
  const m = ALIAS.exec(text);
  if (m === null) return quote(text);
  return `${quote(text.slice(0, text.length - m[0].length))} AS ${quoteSimple(m[1])}`;
}

class Exp {
  constructor(sql, values) {
    this._sql = String(sql);
    this._values = values && typeof values === 'object' ? values : {};
  }
  build(params) {
    Object.assign(params, this._values);
    return this._sql;
  }
}

class HashExp {
  constructor(map) {
    this._map = map && typeof map === 'object' ? map : {};
  }
  build(params) {
    const parts = [];
    for (const name of Object.keys(this._map).sort()) {
      const value = this._map[name];
      if (value === null || value === undefined) parts.push(`${quoteColumn(name)} IS NULL`);
      else if (isExpression(value)) {
        const sql = value.build(params);
        if (sql !== '') parts.push(`(${sql})`);
      } else if (Array.isArray(value)) {
        const sql = new InExp(name, value, false).build(params);
        if (sql !== '') parts.push(sql);
      } else {
        const p = nextName(params);
        params[p] = value;
        parts.push(`${quoteColumn(name)}={:${p}}`);
      }
    }
    return parts.join(' AND ');
  }
}

class AndOrExp {
  constructor(op, exps) {
    this._op = op;
    this._exps = exps;
  }
  build(params) {
    const parts = this._exps.filter(isExpression).map((e) => e.build(params)).filter((s) => s !== '');
    if (parts.length === 0) return '';
    if (parts.length === 1) return parts[0];
    return `(${parts.join(`) ${this._op} (`)})`;
  }
}

class NotExp {
  constructor(exp) {
    this._exp = exp;
  }
  build(params) {
    const sql = isExpression(this._exp) ? this._exp.build(params) : '';
    return sql === '' ? '' : `NOT (${sql})`;
  }
}

class InExp {
  constructor(col, values, not) {
    this._col = String(col);
    this._values = values;
    this._not = not;
  }
  build(params) {
    if (this._values.length === 0) return this._not ? '' : '0=1';
    const items = this._values.map((v) => {
      if (v === null || v === undefined) return 'NULL';
      if (isExpression(v)) return v.build(params);
      const p = nextName(params);
      params[p] = v;
      return `{:${p}}`;
    });
    const col = quoteColumn(this._col);
    if (items.length === 1) return `${col}${this._not ? '<>' : '='}${items[0]}`;
    return `${col} ${this._not ? 'NOT IN' : 'IN'} (${items.join(', ')})`;
  }
}

class LikeExp {
  constructor(like, col, values, or) {
    this._like = like;
    this._col = String(col);
    this._values = values;
    this._or = or;
    this._left = true;
    this._right = true;
    this._escapes = ['\\', '\\\\', '%', '\\%', '_', '\\_'];
  }
  /** Whether `%` goes on the left and on the right (both by default). */
  match(left, right) {
    this._left = Boolean(left);
    this._right = Boolean(right);
    return this;
  }
  /** Pairs of (text, replacement) applied to each value, in place of the default escaping. */
  escape(...pairs) {
    if (pairs.length % 2 !== 0) throw new Error('LikeExp.Escape: the number of escaping characters must be even');
    this._escapes = pairs.map(String);
    return this;
  }
  build(params) {
    if (this._values.length === 0) return '';
    const col = quoteColumn(this._col);
    const parts = this._values.map((raw) => {
      let value = String(raw);
      for (let i = 0; i < this._escapes.length; i += 2) value = value.split(this._escapes[i]).join(this._escapes[i + 1]);
      if (this._left) value = `%${value}`;
      if (this._right) value = `${value}%`;
      const p = nextName(params);
      params[p] = value;
      return `${col} ${this._like} {:${p}} ESCAPE '\\'`;
    });
    return parts.join(this._or ? ' OR ' : ' AND ');
  }
}

class ExistsExp {
  constructor(exp, not) {
    this._exp = exp;
    this._not = not;
  }
  build(params) {
    const sql = isExpression(this._exp) ? this._exp.build(params) : '';
    if (sql === '') return this._not ? '' : '0=1';
    return `${this._not ? 'NOT EXISTS' : 'EXISTS'} (${sql})`;
  }
}

class BetweenExp {
  constructor(col, from, to, not) {
    this._col = String(col);
    this._from = from;
    this._to = to;
    this._not = not;
  }
  build(params) {
    const a = nextName(params);
    params[a] = this._from;
    const b = nextName(params);
    params[b] = this._to;
    return `${quoteColumn(this._col)} ${this._not ? 'NOT BETWEEN' : 'BETWEEN'} {:${a}} AND {:${b}}`;
  }
}

/** `$dbx`: dbx's expression constructors as PocketBase's JSVM exposes them. */
const $dbx = {
  exp: (sql, params) => new Exp(sql, params),
  hashExp: (map) => new HashExp(map),
  not: (exp) => new NotExp(exp),
  and: (...exps) => new AndOrExp('AND', exps),
  or: (...exps) => new AndOrExp('OR', exps),
  in: (col, ...values) => new InExp(col, values, false),
  notIn: (col, ...values) => new InExp(col, values, true),
  like: (col, ...values) => new LikeExp('LIKE', col, values, false),
  notLike: (col, ...values) => new LikeExp('NOT LIKE', col, values, false),
  orLike: (col, ...values) => new LikeExp('LIKE', col, values, true),
  orNotLike: (col, ...values) => new LikeExp('NOT LIKE', col, values, true),
  exists: (exp) => new ExistsExp(exp, false),
  notExists: (exp) => new ExistsExp(exp, true),
  between: (col, from, to) => new BetweenExp(col, from, to, false),
  notBetween: (col, from, to) => new BetweenExp(col, from, to, true),
};

const SHAPE = Symbol('dynamicModelShape');
const ITEM = Symbol('arrayOfItem');

/**
 * PocketBase's `new DynamicModel({...})`: the keys are the columns to read, and each value's type says
 * what a column becomes (a text, a number, a boolean; an array or an object from JSON text; null: as read).
 */
class DynamicModel {
  constructor(shape) {
    const s = shape && typeof shape === 'object' ? { ...shape } : {};
    Object.defineProperty(this, SHAPE, { value: s, enumerable: false });
    Object.assign(this, s);
  }
}

function converted(template, value) {
  if (typeof template === 'string') return value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  if (typeof template === 'number') return value === null || value === undefined || value === '' ? 0 : Number(value);
  if (typeof template === 'boolean') return value === true || value === 1 || value === '1' || value === 'true';
  if (typeof template === 'object' && template !== null) {
    let parsed = value;
    if (typeof value === 'string') {
      try {
        parsed = value === '' ? null : JSON.parse(value);
      } catch {
        parsed = null;
      }
    }
    if (Array.isArray(template)) return Array.isArray(parsed) ? parsed : parsed === null || parsed === undefined ? [] : [parsed];
    return parsed !== null && typeof parsed === 'object' ? parsed : {};
  }
  return value === undefined ? null : value;
}

/** Fills `model` from a row: a DynamicModel takes the columns its shape names, converted; a plain object takes every column. */
function fill(model, row) {
  const shape = model[SHAPE];
  if (!shape) {
    Object.assign(model, row);
    return;
  }
  for (const key of Object.keys(shape)) if (Object.prototype.hasOwnProperty.call(row, key)) model[key] = converted(shape[key], row[key]);
}

/** PocketBase's `arrayOf(model)`: an array `all()` fills with models shaped like `model`. */
function arrayOf(model) {
  const list = [];
  Object.defineProperty(list, ITEM, { value: model, enumerable: false });
  return list;
}

const fresh = (template) => (template instanceof DynamicModel ? new DynamicModel(template[SHAPE]) : {});

/** A query: SQL text with `{:name}` parameters (dbx's Query). */
class Query {
  constructor(rt, sql, params) {
    this._rt = rt;
    this._sql = String(sql);
    this._params = { ...(params ?? {}) };
  }
  bind(params) {
    this._params = { ...(params ?? {}) };
    return this;
  }
  andBind(params) {
    Object.assign(this._params, params ?? {});
    return this;
  }
  sql() {
    return this._sql;
  }
  params() {
    return { ...this._params };
  }
  _run(mode) {
    return this._rt.call('db.query', [{ sql: this._sql, params: this._params, mode }]);
  }
  execute() {
    const affected = this._run('execute').rowsAffected ?? 0;
    return { rowsAffected: () => affected, lastInsertId: () => 0 };
  }
  one(model) {
    const rows = this._run('one').rows ?? [];
    if (rows.length === 0) throw new Error('sql: no rows in result set');
    fill(model, rows[0]);
  }
  all(list) {
    if (!Array.isArray(list)) throw new TypeError('all() takes an array, e.g. arrayOf(new DynamicModel({...}))');
    const rows = this._run('all').rows ?? [];
    const template = list[ITEM];
    list.length = 0;
    for (const row of rows) {
      const model = fresh(template);
      fill(model, row);
      list.push(model);
    }
  }
}

/** dbx's SelectQuery, chained as in Go. */
class SelectQuery {
  constructor(rt, cols) {
    this._rt = rt;
    this._cols = cols;
    this._distinct = false;
    this._option = '';
    this._from = [];
    this._where = null;
    this._joins = [];
    this._order = [];
    this._group = [];
    this._having = null;
    this._limit = -1;
    this._offset = 0;
    this._params = {};
  }
  select(...cols) { this._cols = cols; return this; }
  andSelect(...cols) { this._cols.push(...cols); return this; }
  distinct(on) { this._distinct = Boolean(on); return this; }
  selectOption(option) { this._option = String(option ?? ''); return this; }
  from(...tables) { this._from = tables; return this; }
  where(e) { this._where = e; return this; }
  andWhere(e) { this._where = this._where === null ? e : new AndOrExp('AND', [this._where, e]); return this; }
  orWhere(e) { this._where = this._where === null ? e : new AndOrExp('OR', [this._where, e]); return this; }
  join(type, table, on) { this._joins.push({ type: String(type), table, on }); return this; }
  innerJoin(table, on) { return this.join('INNER JOIN', table, on); }
  leftJoin(table, on) { return this.join('LEFT JOIN', table, on); }
  rightJoin(table, on) { return this.join('RIGHT JOIN', table, on); }
  orderBy(...cols) { this._order = cols; return this; }
  andOrderBy(...cols) { this._order.push(...cols); return this; }
  groupBy(...cols) { this._group = cols; return this; }
  andGroupBy(...cols) { this._group.push(...cols); return this; }
  having(e) { this._having = e; return this; }
  andHaving(e) { this._having = this._having === null ? e : new AndOrExp('AND', [this._having, e]); return this; }
  orHaving(e) { this._having = this._having === null ? e : new AndOrExp('OR', [this._having, e]); return this; }
  limit(n) { this._limit = Number(n); return this; }
  offset(n) { this._offset = Number(n); return this; }
  bind(params) { this._params = { ...(params ?? {}) }; return this; }
  andBind(params) { Object.assign(this._params, params ?? {}); return this; }

  build() {
    const params = { ...this._params };
    const parts = [];
    const cols = this._cols.map((c) => String(c).trim()).filter((c) => c !== '');
    parts.push(`SELECT ${this._distinct ? 'DISTINCT ' : ''}${this._option ? `${this._option} ` : ''}${cols.length === 0 ? '*' : cols.map((c) => aliased(c, quoteColumn)).join(', ')}`);
    if (this._from.length > 0) parts.push(`FROM ${this._from.map((t) => aliased(t, quoteTable)).join(', ')}`);
    for (const j of this._joins) {
      const on = isExpression(j.on) ? j.on.build(params) : '';
      parts.push(`${j.type} ${aliased(j.table, quoteTable)}${on === '' ? '' : ` ON ${on}`}`);
    }
    const where = isExpression(this._where) ? this._where.build(params) : '';
    if (where !== '') parts.push(`WHERE ${where}`);
    if (this._group.length > 0) parts.push(`GROUP BY ${this._group.map((g) => quoteColumn(String(g).trim())).join(', ')}`);
    const having = isExpression(this._having) ? this._having.build(params) : '';
    if (having !== '') parts.push(`HAVING ${having}`);
    if (this._order.length > 0) {
      const terms = this._order.map((o) => {
        const text = String(o).trim();
        const m = /\s+(asc|desc)$/i.exec(text);
        return m === null ? quoteColumn(text) : `${quoteColumn(text.slice(0, text.length - m[0].length))} ${m[1].toUpperCase()}`;
      });
      parts.push(`ORDER BY ${terms.join(', ')}`);
    }
    if (this._limit >= 0) parts.push(`LIMIT ${Math.floor(this._limit)}`);
    else if (this._offset > 0) parts.push('LIMIT -1');
    if (this._offset > 0) parts.push(`OFFSET ${Math.floor(this._offset)}`);
    return new Query(this._rt, parts.join(' '), params);
  }
  one(model) { this.build().one(model); }
  all(list) { this.build().all(list); }
  execute() { return this.build().execute(); }
}

/** Columns and values of an insert or update: keys sorted, as dbx does; an expression is written as it is. */
function assignments(cols, params) {
  const map = cols && typeof cols === 'object' ? cols : {};
  const names = Object.keys(map).sort();
  const values = names.map((n) => {
    const v = map[n];
    if (isExpression(v)) return v.build(params);
    const p = nextName(params);
    params[p] = v;
    return `{:${p}}`;
  });
  return { names, values };
}

/** `$app.db()`: dbx's Builder over the bridge. */
function dbBuilder(rt) {
  return {
    newQuery: (sql) => new Query(rt, sql, {}),
    select: (...cols) => new SelectQuery(rt, cols),
    insert(table, cols) {
      const params = {};
      const { names, values } = assignments(cols, params);
      return new Query(rt, `INSERT INTO ${quoteTable(String(table))} (${names.map(quoteColumn).join(', ')}) VALUES (${values.join(', ')})`, params);
    },
    update(table, cols, where) {
      const params = {};
      const { names, values } = assignments(cols, params);
      const w = isExpression(where) ? where.build(params) : '';
      return new Query(rt, `UPDATE ${quoteTable(String(table))} SET ${names.map((n, i) => `${quoteColumn(n)}=${values[i]}`).join(', ')}${w === '' ? '' : ` WHERE ${w}`}`, params);
    },
    delete(table, where) {
      const params = {};
      const w = isExpression(where) ? where.build(params) : '';
      return new Query(rt, `DELETE FROM ${quoteTable(String(table))}${w === '' ? '' : ` WHERE ${w}`}`, params);
    },
  };
}

exports.install = (g, rt) => {
  Object.assign(g, { $dbx, DynamicModel, arrayOf });
  const builder = dbBuilder(rt);
  // `$app.db()` (and `txApp.db()`, the same object): queries go through the innermost scope's transaction
  if (rt.app) rt.app.db = () => builder;
};
exports.$dbx = $dbx;
exports.DynamicModel = DynamicModel;
exports.arrayOf = arrayOf;
exports.dbBuilder = dbBuilder;
