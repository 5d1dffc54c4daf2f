// What one server's core is made of, handed to each of its factories as one object instead of six to
// nine positional arguments (createCore in index.ts assembles it). A factory takes the part it needs
// (`Pick<CoreEnv, ...>`) and its own extras beside it.
import type { Dialect } from '../rules/compile.js';
import type { FileStorage } from '../files/storage.js';
import type { Store } from '../store/db.js';
import type { Registry } from './collection-registry.js';
import type { Sessions } from './session-store.js';
import type { Credentials } from './writes/prepared.js';
import type { CoreEvents } from './events.js';

export interface CoreEnv {
  store: Store;
  /** The SQL the store takes (`dialectOf(store.dialect)`): everything core writes that differs per engine. */
  dialect: Dialect;
  /** The collections in memory (collection-registry.ts). */
  registry: Registry;
  sessions: Sessions;
  /** Uploaded files beside the database (files/storage.ts). */
  storage: FileStorage;
  /** The server's one sign-in block and password hashing. */
  credentials: Credentials;
  /** Each operation's query budget, in ms of database work (query-budget.ts). */
  budgetMs: number;
  /** What one answer may hold: the rows it reads, an expand as repeated (query-budget.ts MAX_RESPONSE_BYTES). */
  responseBytes: number;
  /** Hears failures no client hears of (a change listener's, a committed write's after-effect). */
  report: (error: unknown) => void;
  /** The clock (tests move it). */
  now: () => number;
  /** Server-side hooks around core's actions (events.ts; NO_EVENTS without hooks). */
  events: CoreEvents;
}
