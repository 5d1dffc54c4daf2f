// LAN sharing in the desktop window, through the whole app against a tiny spec-shaped server, with a
// test double of the Electron preload bridge installed as window.deskbase. In a browser tab (no
// bridge) none of it shows and the page offers the backup only.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { createApi, storageTokenStore } from '../../renderer/api.js';
import { App } from '../../renderer/app.js';
import { startTestServer, type TestServer } from './test-server.js';
import { fakeDesktop, installDesktop, LAN_ON, LAN_OFF, PREFS, type FakeDesktop } from './fake-desktop.js';

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
  localStorage.removeItem('deskbase.theme');
  delete document.documentElement.dataset.theme;
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
    expect(screen.queryByRole('heading', { name: 'This app' })).toBeNull();
  });

  it('has a theme switch: dark and light are kept in this browser, system follows the OS', async () => {
    await mountApp();
    expect(document.documentElement.dataset.theme).toBe('light'); // happy-dom's OS is light
    const select = screen.getByRole('combobox', { name: 'Theme' }) as HTMLSelectElement;
    expect(select.value).toBe('system');
    fireEvent.change(select, { target: { value: 'dark' } });
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    expect(localStorage.getItem('deskbase.theme')).toBe('dark');
    cleanup();
    // the next load starts dark
    await mountApp();
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect((screen.getByRole('combobox', { name: 'Theme' }) as HTMLSelectElement).value).toBe('dark');
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

  it("shows the app's preferences and changes them through the main process", async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    const keep = (await screen.findByRole('switch', { name: 'Keep running when the window is closed' })) as HTMLInputElement;
    expect(keep.checked).toBe(true);
    fireEvent.click(keep);
    await waitFor(() => expect(keep.checked).toBe(false));
    const login = screen.getByRole('switch', { name: 'Open at login' }) as HTMLInputElement;
    fireEvent.click(login);
    await waitFor(() => expect(login.checked).toBe(true));
    fireEvent.change(screen.getByLabelText('Updates'), { target: { value: 'beta' } });
    await waitFor(() => expect(fake.calls).toContain('prefs:{"updateChannel":"beta"}'));
    expect(fake.calls.filter((c) => c.startsWith('prefs:'))).toEqual(['prefs:{"keepRunning":false}', 'prefs:{"openAtLogin":true}', 'prefs:{"updateChannel":"beta"}']);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('saves a fixed port (from the next start), refusing one out of range', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    const input = (await screen.findByLabelText('Port')) as HTMLInputElement;
    fireEvent.input(input, { target: { value: '80' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/from 1024 to 65535/);
    expect(fake.calls.some((c) => c.startsWith('prefs:'))).toBe(false);
    fireEvent.input(input, { target: { value: '9100' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText(/Saved: restart Deskbase to use port 9100\./);
    expect(fake.calls).toContain('prefs:{"port":9100}');
    fireEvent.click(screen.getByRole('button', { name: 'Restart now' }));
    await waitFor(() => expect(fake.calls).toContain('restart'));
  });

  it('says so when another program held the port and Deskbase is on another', async () => {
    const fake = fakeDesktop(LAN_OFF, { ...PREFS, portInUse: 8091 });
    await mountApp(fake);
    const notice = await screen.findByText(/Port 8090 is used by another program, so Deskbase is on port 8091 this time/);
    expect(notice.textContent).toMatch(/apps using port 8090 must use 8091/);
  });

  it('a change the OS refuses leaves the switch as it was and says why', async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    const login = (await screen.findByRole('switch', { name: 'Open at login' })) as HTMLInputElement;
    fake.failNextPreferences('The login item could not be written.');
    fireEvent.click(login);
    expect((await screen.findByRole('alert')).textContent).toBe('The login item could not be written.');
    expect(login.checked).toBe(false);
  });

  it('without a tray, background mode is off and cannot be turned on', async () => {
    const fake = fakeDesktop(LAN_OFF, { ...PREFS, keepRunning: false, keepRunningAvailable: false });
    await mountApp(fake);
    const keep = (await screen.findByRole('switch', { name: 'Keep running when the window is closed' })) as HTMLInputElement;
    expect(keep.disabled).toBe(true);
    expect(screen.getByText(/no tray, so closing the window quits/)).toBeTruthy();
  });

  it("the theme switch is the app's setting: the main process is told, and a change from elsewhere shows", async () => {
    const fake = fakeDesktop();
    await mountApp(fake);
    const select = screen.getByRole('combobox', { name: 'Theme' }) as HTMLSelectElement;
    fireEvent.change(select, { target: { value: 'dark' } });
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    expect(fake.calls).toContain('prefs:{"theme":"dark"}');
    fake.preferencesFromMenu({ ...PREFS, theme: 'light' });
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('light'));
    expect(select.value).toBe('light');
  });

  it('HTTPS beside LAN sharing: applies at the next start, with Restart now', async () => {
    const fake = fakeDesktop(LAN_ON);
    await mountApp(fake);
    const https = (await screen.findByRole('switch', { name: 'Use HTTPS' })) as HTMLInputElement;
    expect(https.checked).toBe(false);
    expect(screen.getByText(/Plain HTTP: not encrypted/)).toBeTruthy();
    expect(screen.getByText(/firewall may ask whether Deskbase may accept incoming connections/)).toBeTruthy();
    fireEvent.click(https);
    await waitFor(() => expect(https.checked).toBe(true));
    expect(fake.calls).toContain('prefs:{"https":true}');
    expect((await screen.findByText(/HTTPS applies when Deskbase restarts/)).textContent).toMatch(/sign in once more/);
    fireEvent.click(screen.getByRole('button', { name: 'Restart now' }));
    await waitFor(() => expect(fake.calls).toContain('restart'));
  });

  it('served over HTTPS already: says the traffic is encrypted, no restart asked, and how a device trusts the CA (its file and fingerprint)', async () => {
    const tls = { caPath: '/home/ada/.config/Deskbase/data/tls/ca.pem', caFingerprint: 'AB:CD:EF' };
    const fake = fakeDesktop({ ...LAN_ON, urls: ['https://192.168.1.20:8090'], tls }, { ...PREFS, https: true, httpsInUse: true });
    await mountApp(fake);
    await screen.findByRole('switch', { name: 'Use HTTPS' });
    await waitFor(() => expect(screen.getByText(/Traffic is encrypted \(HTTPS\)/)).toBeTruthy());
    expect(screen.queryByRole('button', { name: 'Restart now' })).toBeNull();
    expect(screen.getByText('https://192.168.1.20:8090')).toBeTruthy();
    expect(screen.getByText('/home/ada/.config/Deskbase/data/tls/ca.pem')).toBeTruthy();
    expect(screen.getByText('SHA-256 AB:CD:EF')).toBeTruthy();
  });
});
