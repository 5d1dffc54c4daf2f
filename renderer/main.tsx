import { render } from 'solid-js/web';
import { App } from './app.js';
import { createApi, storageTokenStore } from './api.js';
import { applyTheme, storedTheme } from './lib/theme.js';
import './styles.css';

// Before the first paint: the last theme chosen (the app then keeps it in step, renderer/lib/theme.ts).
applyTheme(storedTheme());

const root = document.getElementById('root');
if (root) {
  render(() => <App makeApi={(onUnauthorized) => createApi({ store: storageTokenStore(localStorage), onUnauthorized })} />, root);
}
