import type { H3 } from 'h3';

/** Answers without touching the database. */
export function registerHealth(app: H3): void {
  app.get('/api/health', () => ({ status: 'ok' }));
  app.head('/api/health', () => new Response(null, { status: 200, headers: { 'content-type': 'application/json' } }));
}
