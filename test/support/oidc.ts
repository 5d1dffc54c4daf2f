// A real OpenID provider (oidc-provider, the certified Node one) on loopback for the OAuth2 tests, and
// a user agent that follows its login and consent pages programmatically (its dev interactions: any
// account id signs in), ending at the client's redirect URL with `code` and `state`.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Account {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  picture?: string;
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectURL: string;
  accounts: Map<string, Account>;
  /** Other pages the provider's server answers, by path (a user's picture it hosts), before its OpenID routes. */
  pages: Map<string, RequestListener>;
  /** Opens `authURL` as a browser would, signs in as `accountId`, consents; answers the redirect's URL (not opened). */
  signIn(authURL: string, accountId: string, redirect?: string): Promise<URL>;
  close(): Promise<void>;
}

/** `moreRedirects`: other redirect URLs the client may use (a Deskbase's /api/oauth2-redirect). */
export async function startIdp(moreRedirects: string[] = []): Promise<TestIdp> {
  const accounts = new Map<string, Account>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'deskbase-test';
  const clientSecret = 'a-client-secret-of-the-test-provider';
  const redirectURL = 'http://127.0.0.1:9/oauth2-callback';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectURL, ...moreRedirects], grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username', 'picture'] },
    findAccount: async (_ctx: unknown, id: string) => {
      const a = accounts.get(id);
      return a ? { accountId: id, claims: async () => ({ sub: id, ...a }) } : undefined;
    },
    pkce: { required: () => true },
    // the id_token carries the scopes' claims too (a provider read without its user-info URL)
    conformIdTokenClaims: false,
  });
  const pages = new Map<string, RequestListener>();
  const openid = provider.callback();
  server.on('request', (req, res) => {
    const page = pages.get(new URL(req.url ?? '/', issuer).pathname);
    if (page) page(req, res);
    else openid(req, res);
  });

  async function signIn(authURL: string, accountId: string, redirect = redirectURL): Promise<URL> {
    const jar = new Map<string, string>();
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
      }
    };
    let url = new URL(authURL);
    let init: RequestInit = {};
    for (let hop = 0; hop < 20; hop++) {
      const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: cookie() } });
      keep(res);
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, url);
        if (next.href.startsWith(redirect)) return next;
        url = next;
        init = {};
        continue;
      }
      const html = await res.text();
      if (res.status !== 200 || !url.pathname.startsWith('/interaction/')) throw new Error(`provider answered ${res.status}: ${html.slice(0, 300)}`);
      const prompt = /name="prompt" value="login"/.test(html) ? 'login' : 'consent';
      const body = new URLSearchParams(prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt });
      init = { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    }
    throw new Error('too many redirects');
  }

  return {
    issuer, clientId, clientSecret, redirectURL, accounts, pages, signIn,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
