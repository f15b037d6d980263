// VidStorage in IndexedDB: the DPoP key pair is stored as non-extractable CryptoKey objects
// (structured clone), so it survives reloads and no script can ever read the private key.
import type { DpopKeyPair, StoredSession, VidStorage } from '../../client/src/index.js';

const DB = 'vid';
const STORE = 'device';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

let db: Promise<IDBDatabase> | undefined;

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const conn = await (db ??= open());
  return new Promise<T>((resolve, reject) => {
    const tx = conn.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result as T);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

const get = <T>(name: string) => run<T | undefined>('readonly', (s) => s.get(name));
const put = async (name: string, value: unknown) => {
  await run('readwrite', (s) => (value === undefined ? s.delete(name) : s.put(value, name)));
};

export function indexedDbStorage(): VidStorage {
  return {
    getKey: () => get<DpopKeyPair>('key'),
    setKey: (key) => put('key', key),
    getSession: () => get<StoredSession>('session'),
    setSession: (session) => put('session', session),
  };
}
