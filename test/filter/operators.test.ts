// Which posts each filter matches, against real sql.js tables (the tables are in cases.ts, the rows in
// fixtures.ts):
//   p1 'Hello world'      author u1  tags [t1 red/warm, t2 blue/cold]  labels [a,b] draft views 10  published
//   p2 'Second_post 100%' author u2  tags [t1]                        labels [a]   live  views 0
//   p3 ''                 no author  no tags                          no labels    ''    views 5   data NULL
//   p4 'hello'            author u1  tags [t2, t3 green/'']            labels [c]   live  views 100 published
import type { Database } from 'sql.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_TABLES } from './cases.js';
import { matching, openFixtureDb } from './fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openFixtureDb();
});

for (const [name, cases] of OPERATOR_TABLES) {
  describe(name, () => {
    it.each(cases)('%s', (src, ids) => {
      expect(matching(db, src)).toEqual(ids);
    });
  });
}

