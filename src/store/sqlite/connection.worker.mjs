// A connection to the embedded store: its main file with the files attached beside it (the usage file, see
// store/sqlite/usage-file.ts), so that every connection (the writers, the checkpointer, the read connection)
// finds every table under its own name. Plain JavaScript, named .worker.mjs so that the build copies it beside
// the threads' modules, which load it as it is.
import SQLite from 'better-sqlite3';

/** Opens `path` and attaches each of `attached` (`{schema, path}`) under its schema name. */
export function openConnection(path, attached = []) {
  const db = new SQLite(path);
  try {
    for (const file of attached) db.prepare(`attach database ? as ${file.schema}`).run(file.path);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
