// Random record bodies for every field type, through the HTTP app: every answer is a 200 or a 400
// whose `data` maps keys to `{ code, message }`, never a 500; a 200 stores what it returns.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness, type Res } from '../support/harness.js';
import { fuzzRuns, SOAK } from '../fixtures/hardening-soak.js';
import { anyText } from '../fixtures/any-text.js';

let h: Harness;
let su: string;
let relIds: string[];
let existing: { every: string; members: string };

const EVERY_FIELDS = [
  { name: 'text', type: 'text', max: 50, pattern: '^[^#]*$' },
  { name: 'req', type: 'text' },
  { name: 'editor', type: 'editor', maxSize: 200 },
  { name: 'num', type: 'number', min: -1000, max: 1000 },
  { name: 'int', type: 'number', onlyInt: true },
  { name: 'flag', type: 'bool' },
  { name: 'mail', type: 'email', onlyDomains: ['example.com'] },
  { name: 'link', type: 'url' },
  { name: 'day', type: 'date', min: '2000-01-01', max: '2100-01-01' },
  { name: 'one', type: 'select', values: ['a', 'b', 'c'], maxSelect: 1 },
  { name: 'many', type: 'select', values: ['a', 'b', 'c', 'd'], maxSelect: 3 },
  { name: 'rel', type: 'relation', collectionId: 'TARGET', maxSelect: 1 },
  { name: 'rels', type: 'relation', collectionId: 'TARGET', maxSelect: 5 },
  { name: 'data', type: 'json', maxSize: 300 },
  { name: 'place', type: 'geoPoint' },
  { name: 'uniq', type: 'text' },
  { name: 'created', type: 'autodate', onCreate: true },
  { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
];

async function must(r: Promise<Res>): Promise<Res> {
  const res = await r;
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res;
}

beforeAll(async () => {
  h = await harness();
  su = await h.superuser();
  const target = await must(h.req('POST', '/api/collections', { token: su, body: { name: 'target', listRule: '', viewRule: '' } }));
  const fields = EVERY_FIELDS.map((f) => ('collectionId' in f ? { ...f, collectionId: target.body.id } : f));
  const every = await must(h.req('POST', '/api/collections', { token: su, body: { name: 'every', fields, listRule: '', viewRule: '', createRule: '', updateRule: '' } }));
  const uniqId = every.body.fields.find((f: { name: string }) => f.name === 'uniq').id;
  await must(h.req('PATCH', '/api/collections/every', { token: su, body: { indexes: [{ name: 'every_uniq', fields: [uniqId], unique: true }] } }));
  await must(h.req('POST', '/api/collections', {
    token: su,
    body: { name: 'members', type: 'auth', fields: [{ name: 'nick', type: 'text', max: 20 }, { name: 'score', type: 'number' }], createRule: '', updateRule: 'id = @request.auth.id', manageRule: null },
  }));
  relIds = [];
  for (let i = 0; i < 3; i++) relIds.push((await must(h.req('POST', '/api/collections/target/records', { token: su, body: {} }))).body.id);
  existing = {
    every: (await must(h.req('POST', '/api/collections/every/records', { body: { req: 'x', uniq: 'taken' } }))).body.id,
    members: (await must(h.req('POST', '/api/collections/members/records', { body: { email: 'm@example.com', password: 'password123', passwordConfirm: 'password123' } }))).body.id,
  };
}, 60_000);
afterAll(async () => { await h.close(); });

/** A value of any JSON shape, biased towards what the field types parse. */
function valueArb(): fc.Arbitrary<unknown> {
  const id = () => fc.constantFrom(...relIds, 'missing0000000x', '', 'a');
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom('a', 'b', 'd', 'x@example.com', 'x@evil.com', 'https://example.com', 'javascript:alert(1)', '2024-02-29 10:00:00.000Z',
      '2024-13-01', '1e400', 'NaN', '-0', '1.5', ' ', '#', '{"a":1}', '[1,2', 'null', 'true', '\u0000', '\uD800', 'x'.repeat(400)),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE, 1e308, -1e-308, 0, -0, 0.1, 999, 1001),
    fc.record({ lon: fc.double(), lat: fc.double() }, { requiredKeys: [] }),
    id(),
    fc.array(id(), { maxLength: 7 }),
    fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', ''), { maxLength: 6 }),
  );
}

function bodyArb(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...keys) },
    { weight: 3, arbitrary: fc.constantFrom(...keys).chain((k) => fc.constantFrom(`${k}+`, `+${k}`, `${k}-`, `${k}:autogenerate`)) },
    { weight: 1, arbitrary: fc.constantFrom('id', 'collectionId', 'expand', '__proto__', 'constructor', 'unknown', '') },
  );
  return fc.dictionary(key, valueArb(), { maxKeys: 8 });
}

/** The whole contract of a write's answer. */
function expectContract(r: Res): void {
  if (r.status === 500 || ![200, 400, 404].includes(r.status)) throw new Error(`unexpected ${r.status}: ${r.text}`);
  if (r.status === 200) {
    expect(typeof r.body.id).toBe('string');
    expect(r.body.password).toBeUndefined();
    expect(r.body.tokenKey).toBeUndefined();
    return;
  }
  expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status']);
  expect(r.body.status).toBe(r.status);
  for (const [key, detail] of Object.entries(r.body.data as Record<string, { code: string; message: string }>)) {
    expect(typeof key).toBe('string');
    expect(detail.code, key).toMatch(/^validation_[a-z_]+$/);
    expect(typeof detail.message).toBe('string');
  }
}

/** What the server returned is what it stored (the stored record may show more: the caller's view hides some keys). */
async function expectStored(collection: string, r: Res): Promise<void> {
  if (r.status !== 200) return;
  const again = await h.req('GET', `/api/collections/${collection}/records/${r.body.id}`, { token: su });
  expect(again.status).toBe(200);
  for (const [key, value] of Object.entries(r.body as Record<string, unknown>)) {
    if (key !== 'updated') expect(again.body[key], key).toEqual(value);
  }
}

const keysOf = (collection: 'every' | 'members') => collection === 'every'
  ? EVERY_FIELDS.map((f) => f.name)
  : ['email', 'password', 'passwordConfirm', 'oldPassword', 'emailVisibility', 'verified', 'nick', 'score', 'tokenKey'];

let serial = 0;
/** A valid body to start from, so that random keys are also tried on bodies that would otherwise pass. */
const validBase = (collection: 'every' | 'members'): Record<string, unknown> => {
  serial++;
  return collection === 'every'
    ? { req: 'ok', uniq: `u${serial}` }
    : { email: `m${serial}@example.com`, password: 'password123', passwordConfirm: 'password123' };
};

describe.each(['every', 'members'] as const)('random bodies on %s', (collection) => {
  it('create answers 200 or 400 with field codes, and stores what it returns', async () => {
    const statuses: number[] = [];
    await fc.assert(fc.asyncProperty(bodyArb(keysOf(collection)), fc.boolean(), fc.boolean(), async (random, fromValid, asSuperuser) => {
      const body = fromValid ? { ...validBase(collection), ...random } : random;
      const r = await h.req('POST', `/api/collections/${collection}/records`, { body, token: asSuperuser ? su : undefined });
      statuses.push(r.status);
      expectContract(r);
      await expectStored(collection, r);
    }), { numRuns: fuzzRuns(150) });
    // the property must see both outcomes to mean anything
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(statuses.length / 10);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(statuses.length / 10);
  }, 30_000 * SOAK);

  it('update answers 200, 400 or 404 and stores what it returns', async () => {
    const statuses: number[] = [];
    await fc.assert(fc.asyncProperty(bodyArb(keysOf(collection)), async (body) => {
      const r = await h.req('PATCH', `/api/collections/${collection}/records/${existing[collection]}`, { body, token: su });
      statuses.push(r.status);
      expectContract(r);
      await expectStored(collection, r);
    }), { numRuns: fuzzRuns(150) });
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(statuses.length / 10);
  }, 30_000 * SOAK);
});

describe('raw bodies', () => {
  const contentTypes = ['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'multipart/form-data', ''];
  it('arbitrary bytes under any content type are a 200 or a 400, never a 500', async () => {
    await fc.assert(fc.asyncProperty(
      fc.oneof(anyText(200), fc.jsonValue().map((v) => JSON.stringify(v))),
      fc.constantFrom(...contentTypes),
      async (raw, type) => {
        const r = await h.req('POST', '/api/collections/every/records', { raw, headers: type ? { 'content-type': type } : {} });
        expectContract(r);
      },
    ), { numRuns: fuzzRuns(150) });
  }, 30_000 * SOAK);

  it.each([
    ['req=a&uniq=form1&num=12&flag=true&many=a&many=b&data=%7B%22k%22%3A1%7D', 'application/x-www-form-urlencoded'],
    ['--x\r\nContent-Disposition: form-data; name="req"\r\n\r\nv\r\n--x\r\nContent-Disposition: form-data; name="@jsonPayload"\r\n\r\n{"num":3,"uniq":"form2"}\r\n--x--\r\n', 'multipart/form-data; boundary=x'],
  ])('well-formed form bodies are accepted (%#)', async (raw, type) => {
    const r = await h.req('POST', '/api/collections/every/records', { raw, headers: { 'content-type': type } });
    expect(r.status, r.text).toBe(200);
  });
});
