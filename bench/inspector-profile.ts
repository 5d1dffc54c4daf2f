// CPU profiling of a child's main thread for just the measured window (not start-up or seeding),
// through node:inspector; the result is a .cpuprofile file, as `node --cpu-prof` writes.
import { Session } from 'node:inspector';
import { writeFile } from 'node:fs/promises';

export class WindowProfiler {
  private session: Session | null = null;

  private post(method: string, params?: object): Promise<unknown> {
    const session = this.session;
    if (session === null) return Promise.reject(new Error('profiler not started'));
    return new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  }

  async start(intervalUs = 200): Promise<void> {
    if (this.session !== null) throw new Error('profiler already running');
    this.session = new Session();
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.post('Profiler.start');
  }

  /** Stops and writes the profile to `file`. */
  async stop(file: string): Promise<string> {
    const { profile } = (await this.post('Profiler.stop')) as { profile: unknown };
    this.session?.disconnect();
    this.session = null;
    await writeFile(file, JSON.stringify(profile));
    return file;
  }
}
