// A PocketBase data.db made in memory for benches and load tests: PocketBase's `_collections` table with
// one base collection (its `id` field as PocketBase makes it, then `fields`) and that collection's table,
// its columns named after the fields. The caller inserts the rows and exports the database.
import type { Database, SqlJsStatic } from 'sql.js';

export function pocketBaseDatabase(SQL: SqlJsStatic, collection: { id: string; name: string; fields: ({ id: string; name: string; type: string } & Record<string, unknown>)[] }): Database {
  const db = new SQL.Database();
  db.run('CREATE TABLE _collections (id TEXT PRIMARY KEY, system BOOLEAN, type TEXT, name TEXT, fields JSON, listRule TEXT, viewRule TEXT, createRule TEXT, updateRule TEXT, deleteRule TEXT, options JSON, created TEXT, updated TEXT, indexes JSON)');
  const fields = [
    { id: 'text3208210256', name: 'id', type: 'text', primaryKey: true, system: true, required: true, min: 15, max: 15, pattern: '^[a-z0-9]+$', autogeneratePattern: '[a-z0-9]{15}' },
    ...collection.fields,
  ];
  db.run('INSERT INTO _collections VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)', [collection.id, 0, 'base', collection.name, JSON.stringify(fields), '', '', null, null, null, '{}', '2024-01-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', '[]']);
  const columns = collection.fields.map((f) => `${f.name} ${f.type === 'bool' ? 'BOOLEAN' : 'TEXT'}`);
  db.run(`CREATE TABLE ${collection.name} (id TEXT PRIMARY KEY, ${columns.join(', ')})`);
  return db;
}
