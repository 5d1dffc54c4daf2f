import { render } from 'solid-js/web';
import { App } from './app.js';
import { createApi, storageTokenStore } from './api.js';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  render(() => <App makeApi={(onUnauthorized) => createApi({ store: storageTokenStore(localStorage), onUnauthorized })} />, root);
}
