// Types for scripts/start-lib.mjs (plain Node ESM, imported by the tests).
export interface Probe {
  exists(path: string): boolean;
  read(path: string): string | null;
  platform: string;
  electronDir: string;
}
export type Availability = { ok: true; binary: string } | { ok: false; reason: string; downloadable: boolean };
export const EARLY_EXIT_MS: number;
export function nodeProbe(root: string, platform?: string): Probe;
export function electronAvailability(env: Record<string, string | undefined>, probe: Probe): Availability;
export function headlessNotice(reason: string): string;
export function failedAtLaunch(code: number | null, elapsedMs: number): boolean;
