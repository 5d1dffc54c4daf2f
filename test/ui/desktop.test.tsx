// LAN sharing in the desktop window, through the whole app against a tiny spec-shaped server, with a
// test double of the Electron preload bridge installed as window.deskbase. In a browser tab (no
// bridge) none of it shows and the page offers the backup only.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { createApi, storageTokenStore } from '../../renderer/api.js';
import { App } from '../../renderer/app.js';
import { startTestServer, type TestServer } from './test-server.js';
import { fakeDesktop, installDesktop, LAN_ON, type FakeDesktop } from './fake-desktop.js';

const WARNING = /Deskbase is reachable from your local network at http:\/\/192\.168\.1\.20:8090 and http:\/\/10\.0\.0\.7:8090: anyone on this network can call the API; rules still apply\./;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer((req) => {
    const path = req.url.replace(/\?.*$/, '');
    if (path === '/api/setup') return { status: 200, body: { required: false } };
    if (path === '/api/session')
      return { status: 200, body: { id: 's1', current: true, created: '', expires: '', userAgent: '', record: { collectionName: '_superusers', id: 'u1', email: 'admin@example.com' } } };
    if (path === '/api/collections') return { status: 200, body: { page: 1, perPage: 1000, totalItems: 1, totalPages: 1, items: [{ id: 'c1', name: 'posts', type: 'base', system: false, fields: [], indexes: [] }] } };
    return { status: 200, body: { page: 1, perPage: 30, totalItems: 0, totalPages: 0, items: [] } };
  });
});
afterAll(() => server.close());
beforeEach(() => {
  localStorage.setItem('deskbase.token', 'token');
  window.history.replaceState(null, '', '#/data');
});
afterEach(() => {
  cleanup();
  installDesktop(undefined);
});

async function mountApp(fake?: FakeDesktop): Promise<void> {
  installDesktop(fake);
  render(() => <App makeApi={(onUnauthorized) => createApi({ baseUrl: server.baseUrl, store: storageTokenStore(localStorage), onUnauthorized })} />);
  await screen.findByRole('button', { name: 'Download backup' });
  // The sidebar's list is the last request the shell makes: nothing is left in flight after the test.
  await screen.findByRole('link', { name: 'posts' });
}

const lanSwitch = () => screen.getByRole('switch', { name: 'Share on local network' }) as HTMLInputElement;
const banner = () => document.querySelector('.lan-banner');

describe('in a browser tab', () => {
  it('offers the backup only: no sharing switch, no desktop buttons, no banner', async () => {
    await mountApp();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Data');
    expect(screen.queryByRole('switch')).toBeNull();
    expect(screen.queryByText('Share on local network')).toBeNull();
    expect(screen.queryByRole('button', { name: /Copy API URL/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Open data folder/ })).toBeNull();
    expect(banner()).toBeNull();
  });
});

describe('in the desktop window', () => {
  it('starts off, turns sharing on with addresses, QR code and a warning on every page, then off again', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Sharing & data');
    await waitFor(() => expect(fake.calls).toContain('get'));
    expect(lanSwitch().checked).toBe(false);
    expect(banner()).toBeNull();
    expect(document.querySelector('.lan-qr img')).toBeNull();

    fireEvent.click(lanSwitch());
    await waitFor(() => expect(lanSwitch().checked).toBe(true));
    expect(fake.calls).toContain('set:true');
    for (const url of LAN_ON.urls) expect(screen.getByText(url)).toBeTruthy();
    const qr = document.querySelector('.lan-qr img') as HTMLImageElement;
    expect(qr.getAttribute('src')).toBe(LAN_ON.qr);
    expect(qr.alt).toBe('QR code of http://192.168.1.20:8090');
    expect(banner()?.textContent).toMatch(WARNING);

    // The warning stays on other pages.
    window.location.hash = '#/sessions';
    await screen.findByRole('heading', { name: 'Sessions' });
    expect(banner()?.textContent).toMatch(WARNING);

    fireEvent.click(screen.getByRole('button', { name: 'Stop sharing' }));
    await waitFor(() => expect(banner()).toBeNull());
    expect(fake.calls.filter((c) => c.startsWith('set:'))).toEqual(['set:true', 'set:false']);
  });

  it('shows why turning sharing on failed and leaves the switch off', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    await waitFor(() => expect(fake.calls).toContain('get'));
    fake.failNextSet('Port 8090 is already in use on the local network addresses.');
    fireEvent.click(lanSwitch());
    const alert = await screen.findByText(/Could not change sharing/);
    expect(alert.textContent).toBe('Could not change sharing: Port 8090 is already in use on the local network addresses.');
    expect(lanSwitch().checked).toBe(false);
    expect(banner()).toBeNull();
    // A later success clears the message.
    fireEvent.click(lanSwitch());
    await waitFor(() => expect(lanSwitch().checked).toBe(true));
    expect(screen.queryByText(/Could not change sharing/)).toBeNull();
  });

  it('follows changes made from the menu or tray, and stops listening when the window unloads', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    await waitFor(() => expect(fake.listeners()).toBe(1));
    fake.changeFromMenu(LAN_ON);
    await waitFor(() => expect(lanSwitch().checked).toBe(true));
    expect(banner()?.textContent).toMatch(WARNING);
    expect(document.querySelector('.sidebar .badge-warning')?.textContent).toBe('on');
    cleanup();
    expect(fake.listeners()).toBe(0);
  });

  it('starts on when sharing was left on last time', async () => {
    const fake = fakeDesktop(LAN_ON);
    await mountApp(fake);
    await waitFor(() => expect(lanSwitch().checked).toBe(true));
    expect(banner()?.textContent).toMatch(WARNING);
  });

  it('copies the API URL and opens the data folder, with a notice for either outcome', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    fireEvent.click(screen.getByRole('button', { name: /Copy API URL/ }));
    await screen.findByText('Copied http://127.0.0.1:8090/api/');
    const open = screen.getByRole('button', { name: /Open data folder/ }) as HTMLButtonElement;
    fireEvent.click(open);
    await waitFor(() => expect(fake.calls).toContain('open'));
    await waitFor(() => expect(open.disabled).toBe(false));
    fake.failNextOpen('No file manager found.');
    fireEvent.click(screen.getByRole('button', { name: /Open data folder/ }));
    expect((await screen.findByText('No file manager found.')).closest('.toast-error')).toBeTruthy();
  });
});
