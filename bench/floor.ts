// The floor: the least any server must do to compute the bench's view and list answers on sql.js from
// the same database: a bare node:http server over the checkpointed file, one prepared statement per
// case, each row's values to JSON. No rules, no fields or expand, no sessions, no request log, no
// conversions. What it serves beside the ceiling bounds what a computed read on sql.js can reach:
// Deskbase's computed figures are read against it as well as against the ceiling (bench/ratio.ts --floor).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { loadSqlJs } from '../server/store/db.js';
import { listenBare } from './ceiling.js';

const VIEW = /^\/api\/collections\/([^/?]+)\/records\/([^/?]+)$/;
const LIST = /^\/api\/collections\/([^/?]+)\/records\?/;

export async function startFloor(file: string): Promise<{ server: Server; url: string }> {
  // the store's loader: sql.js keeps the first module of the process, and the store needs its own (store/determinism.ts)
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(file));
  const collections = new Map<string, string>();
  for (const row of db.exec('SELECT "id", "name" FROM "_collections"')[0]?.values ?? []) collections.set(String(row[1]), String(row[0]));
  const statements = new Map<string, { one: ReturnType<typeof db.prepare>; page: ReturnType<typeof db.prepare>; count: ReturnType<typeof db.prepare> }>();
  const of = (name: string) => {
    let s = statements.get(name);
    if (s === undefined) {
      s = {
        one: db.prepare(`SELECT * FROM "${name}" WHERE "id" = ?`),
        page: db.prepare(`SELECT * FROM "${name}" LIMIT 30 OFFSET 0`),
        count: db.prepare(`SELECT count(*) FROM "${name}"`),
      };
      statements.set(name, s);
    }
    return s;
  };
  // rows as arrays (sql.js's cheapest read) made into objects by the column names read once per statement
  const columns = new Map<ReturnType<typeof db.prepare>, string[]>();
  const rowOf = (statement: ReturnType<typeof db.prepare>, name: string): Record<string, unknown> => {
    let names = columns.get(statement);
    if (names === undefined) columns.set(statement, (names = statement.getColumnNames()));
    const values = statement.get();
    const row: Record<string, unknown> = { collectionId: collections.get(name), collectionName: name };
    for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
    return row;
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    let body: string;
    let m = VIEW.exec(url);
    if (m !== null && collections.has(m[1])) {
      const { one } = of(m[1]);
      one.bind([decodeURIComponent(m[2])]);
      const row = one.step() ? rowOf(one, m[1]) : null;
      one.reset();
      if (row === null) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404,"message":"not found","data":{}}');
        return;
      }
      body = JSON.stringify(row);
    } else if ((m = LIST.exec(url)) !== null && collections.has(m[1])) {
      const { page, count } = of(m[1]);
      const items: unknown[] = [];
      while (page.step()) items.push(rowOf(page, m[1]));
      page.reset();
      count.step();
      const total = Number(count.get()[0]);
      count.reset();
      body = JSON.stringify({ items, page: 1, perPage: 30, totalItems: total, totalPages: Math.ceil(total / 30) });
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":404}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  return listenBare(server);
}
