// A real server on a socket for tests that drive the official PocketBase SDK: first-time setup done,
// a signed-in superuser SDK client, fresh clients on demand, and the SDK's error for a refused call.
import { EventSource } from 'eventsource';
import PocketBase, { ClientResponseError } from 'pocketbase';
import { afterAll, beforeAll, expect } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../server/index.js';
import { engineServerOptions, TEST_SCRYPT_N } from './test-store.js';

// Node has no EventSource; the SDK's realtime service needs one (PocketBase's docs name this package)
(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

/** Makes ADMIN the first superuser of a fresh server (POST /api/setup with its setup token). */
export async function setUpAdmin(server: RunningServer): Promise<void> {
  const setup = await fetch(`${server.url}/api/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: await server.setupToken(), ...ADMIN }) });
  expect(setup.status).toBe(200);
}

export interface SdkServer {
  server: RunningServer;
  /** Signed in as the superuser. */
  admin: PocketBase;
  /** A fresh SDK client, auto-cancellation off (parallel requests from Node). */
  client(): PocketBase;
}

export async function startSdkServer(options: Partial<ServerOptions> = {}): Promise<SdkServer> {
  // without a data folder, on the suite's engine (test-store.ts): PostgreSQL in the postgres-api project
  const onEngine = (options.dir ?? null) === null && options.openStore === undefined ? engineServerOptions('sdk') : {};
  const server = await startServer({ dir: null, port: 0, uiDir: null, log: () => undefined, scryptN: TEST_SCRYPT_N, ...onEngine, ...options });
  await setUpAdmin(server);
  const client = () => {
    const pb = new PocketBase(server.url);
    pb.autoCancellation(false);
    return pb;
  };
  const admin = client();
  await admin.collection('_superusers').authWithPassword(ADMIN.email, ADMIN.password);
  return { server, admin, client };
}

/** The ClientResponseError a refused SDK call throws. */
export async function failure(promise: Promise<unknown>): Promise<ClientResponseError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClientResponseError);
  return err as ClientResponseError;
}

/**
 * startSdkServer for a whole test file, as its first hooks: filled in before the file's own beforeAll
 * hooks run (`sdk.admin`, `sdk.client()`, `sdk.server`) and closed after the file.
 */
export function sdkSuite(options: Partial<ServerOptions> = {}): SdkServer {
  const suite = {} as SdkServer;
  beforeAll(async () => { Object.assign(suite, await startSdkServer(options)); });
  afterAll(async () => { await suite.server?.close(); });
  return suite;
}
