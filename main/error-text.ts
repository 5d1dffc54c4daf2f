/** The message of anything thrown, for logs and dialogs. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
