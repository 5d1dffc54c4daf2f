// What reading a body needs from its app: the bytes in flight across all its requests
// (bodies-in-flight.ts) and its parser thread (body-worker.ts). createApp makes one of each and hands
// them to every request it serves, so two apps in one process (tests, a restart) share nothing.
import type { H3Event } from 'h3';
import { BodiesInFlight } from './bodies-in-flight.js';
import { BodyParser } from './body-worker.js';

export interface BodyServices {
  inFlight: BodiesInFlight;
  parser: BodyParser;
}

export function createBodyServices(bytesInFlight?: number): BodyServices {
  return { inFlight: new BodiesInFlight(bytesInFlight), parser: new BodyParser() };
}

const byEvent = new WeakMap<H3Event, BodyServices>();

/** Set by the app's first middleware for each request (app.ts). */
export const setBodyServices = (event: H3Event, services: BodyServices): void => void byEvent.set(event, services);

export function bodyServicesOf(event: H3Event): BodyServices {
  const services = byEvent.get(event);
  if (services === undefined) throw new Error('a body was read outside createApp: no body services for this request');
  return services;
}
