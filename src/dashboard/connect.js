// The key form, and what this tab remembers in sessionStorage (the key, the entity, the range and the
// "Include usage.* calls" box). The key is kept in this tab's sessionStorage only: never in the URL, a
// cookie or localStorage, so that it goes when the tab closes. Storage that refuses (a private mode) only
// means the page forgets sooner.
import { $ } from './dom.js';

export const STORAGE = {
  key: 'dispatch.dashboard.key',
  entity: 'dispatch.dashboard.entity',
  range: 'dispatch.dashboard.range',
  include: 'dispatch.dashboard.includeUsage',
};
const ENTITY_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export const storage = {
  get(name) {
    try {
      return sessionStorage.getItem(name);
    } catch {
      return null;
    }
  },
  set(name, value) {
    try {
      sessionStorage.setItem(name, value);
    } catch {
      // Storage refused (a private mode): the page still works until the tab is closed.
    }
  },
  remove(name) {
    try {
      sessionStorage.removeItem(name);
    } catch {
      // Nothing to forget.
    }
  },
};

/** The key and entity this tab signed in with before (a reload), or undefined: the form is shown then. */
export function savedAuth() {
  const savedKey = storage.get(STORAGE.key);
  return savedKey ? { key: savedKey, entity: storage.get(STORAGE.entity) || 'demo' } : undefined;
}

export const forgetKey = () => storage.remove(STORAGE.key);

/** The key form, with what went wrong (if anything) and the field to correct focused. */
export function showConnect(message = '', { key = '', field = 'key' } = {}) {
  $('dashboard').hidden = true;
  $('session').hidden = true;
  $('connect').hidden = false;
  const error = $('connect-error');
  error.textContent = message;
  error.hidden = !message;
  const keyInput = $('key-input');
  const entityInput = $('entity-input');
  keyInput.value = key;
  entityInput.value = storage.get(STORAGE.entity) || entityInput.value || 'demo';
  keyInput.setAttribute('aria-invalid', String(Boolean(message) && field === 'key'));
  entityInput.setAttribute('aria-invalid', String(Boolean(message) && field === 'entity'));
  (field === 'entity' ? entityInput : keyInput).focus();
}

/** On a submitted form with a key and a valid entity: remembers both and calls `start` with them. */
export function onConnect(start) {
  $('connect-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const key = $('key-input').value.trim();
    const entity = $('entity-input').value.trim() || 'demo';
    if (!key) return showConnect('Paste an API key (it starts with sk_live_ or sk_test_).');
    if (!ENTITY_PATTERN.test(entity)) {
      return showConnect('An entity id is 1 to 64 letters, digits and . _ : - characters.', { key, field: 'entity' });
    }
    storage.set(STORAGE.key, key);
    storage.set(STORAGE.entity, entity);
    start({ key, entity });
  });
}
