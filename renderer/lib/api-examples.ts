// Example requests a LAN app would send for one collection: curl, fetch and the PocketBase JS SDK,
// with this server's real address.
import type { Collection, Field } from '../api.js';
import type { RuleKey } from '../../server/model/types.js';

export type OperationId = 'list' | 'view' | 'create' | 'update' | 'delete' | 'auth';
export type Flavor = 'curl' | 'fetch' | 'sdk';

export interface Operation {
  id: OperationId;
  title: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  rule?: RuleKey;
  body?: Record<string, unknown>;
}

function sample(f: Field): unknown {
  switch (f.type) {
    case 'text': return 'example text';
    case 'editor': return '<p>Hello</p>';
    case 'number': return 42;
    case 'bool': return true;
    case 'email': return 'someone@example.com';
    case 'url': return 'https://example.com';
    case 'date': return '2025-01-31T12:00:00.000Z';
    case 'select': return f.maxSelect > 1 ? f.values.slice(0, 2) : (f.values[0] ?? '');
    case 'relation': return f.maxSelect > 1 ? ['RELATED_RECORD_ID'] : 'RELATED_RECORD_ID';
    case 'json': return { key: 'value' };
    case 'password': return 'a-long-password';
    case 'geoPoint': return { lon: 4.35, lat: 50.85 };
    case 'autodate': return undefined;
  }
}

export function sampleBody(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of c.fields) {
    if (f.type === 'autodate' || f.name === 'id' || f.name === 'tokenKey' || f.name === 'verified') continue;
    const v = sample(f);
    if (v === undefined) continue;
    out[f.name] = v;
    if (f.type === 'password') out[`${f.name}Confirm`] = v;
  }
  return out;
}

export function operations(c: Collection): Operation[] {
  const base = `/api/collections/${c.name}`;
  const list: Operation[] = [
    { id: 'list', title: 'List / search', method: 'GET', path: `${base}/records`, rule: 'listRule' },
    { id: 'view', title: 'View', method: 'GET', path: `${base}/records/RECORD_ID`, rule: 'viewRule' },
    { id: 'create', title: 'Create', method: 'POST', path: `${base}/records`, rule: 'createRule', body: sampleBody(c) },
    { id: 'update', title: 'Update', method: 'PATCH', path: `${base}/records/RECORD_ID`, rule: 'updateRule', body: sampleBody(c) },
    { id: 'delete', title: 'Delete', method: 'DELETE', path: `${base}/records/RECORD_ID`, rule: 'deleteRule' },
  ];
  // a view's records are read-only: the API answers 400 to any write
  if (c.type === 'view') return list.slice(0, 2);
  if (c.type === 'auth') {
    list.push({ id: 'auth', title: 'Sign in', method: 'POST', path: `${base}/auth-with-password`, rule: 'authRule', body: { identity: 'someone@example.com', password: 'a-long-password' } });
  }
  return list;
}

/** The query of the list example: first page, newest first, a filter on a text field when there is one. */
function listQuery(c: Collection): { query: string; filter?: string; sort?: string } {
  const text = c.fields.find((f) => f.type === 'text' && !f.system);
  const filter = text ? `${text.name} ~ "hello"` : undefined;
  const sort = c.fields.some((f) => f.name === 'created') ? '-created' : undefined;
  const params = new URLSearchParams({ page: '1', perPage: '30' });
  if (sort) params.set('sort', sort);
  if (filter) params.set('filter', filter);
  return { query: `?${params.toString()}`, filter, sort };
}

export function needsToken(c: Collection, op: Operation): boolean {
  if (op.id === 'auth') return false;
  return !op.rule || c[op.rule] !== '';
}

export function snippet(c: Collection, op: Operation, flavor: Flavor, origin: string): string {
  const lq = op.id === 'list' ? listQuery(c) : undefined;
  const url = origin + op.path + (lq?.query ?? '');
  const token = needsToken(c, op);
  const json = op.body ? JSON.stringify(op.body, null, 2) : undefined;
  if (flavor === 'curl') {
    const lines = [`curl -X ${op.method} '${url}'`];
    if (token) lines.push(`  -H 'Authorization: Bearer YOUR_TOKEN'`);
    if (json) lines.push(`  -H 'Content-Type: application/json'`, `  -d '${json.replace(/'/g, "'\\''")}'`);
    return lines.join(' \\\n');
  }
  if (flavor === 'fetch') {
    const headers: string[] = [];
    if (token) headers.push(`Authorization: 'Bearer ' + token`);
    if (json) headers.push(`'Content-Type': 'application/json'`);
    const init: string[] = [`  method: '${op.method}',`];
    if (headers.length) init.push(`  headers: { ${headers.join(', ')} },`);
    if (json) init.push(`  body: JSON.stringify(${json.replace(/\n/g, '\n  ')}),`);
    const read = op.method === 'DELETE' ? '// 204: no body' : 'const data = await res.json();';
    return `const res = await fetch('${url}', {\n${init.join('\n')}\n});\nif (!res.ok) throw new Error((await res.json()).message);\n${read}`;
  }
  const col = `pb.collection('${c.name}')`;
  const head = `import PocketBase from 'pocketbase';\n\nconst pb = new PocketBase('${origin}');\n`;
  const auth = token ? `// sign in first, e.g. await pb.collection('users').authWithPassword(email, password);\n` : '';
  const body = json ? json.replace(/\n/g, '\n') : '{}';
  const call: Record<OperationId, string> = {
    list: `const page = await ${col}.getList(1, 30, {\n${lq?.filter ? `  filter: ${JSON.stringify(lq.filter)},\n` : ''}${lq?.sort ? `  sort: '${lq.sort}',\n` : ''}});`,
    view: `const record = await ${col}.getOne('RECORD_ID');`,
    create: `const record = await ${col}.create(${body});`,
    update: `const record = await ${col}.update('RECORD_ID', ${body});`,
    delete: `await ${col}.delete('RECORD_ID');`,
    auth: `const { token, record } = await ${col}.authWithPassword('someone@example.com', 'a-long-password');\n// pb.authStore now holds the token for later calls`,
  };
  return head + auth + call[op.id];
}
