// The WAL checkpointer of the embedded SQLite store: a connection of its own that copies the WAL's committed
// pages back into the database file every few hundred milliseconds. A passive checkpoint neither waits for
// nor holds up the writer or a reader, so the writer's commits no longer do this work (and its fsync) in
// whichever commit crosses the WAL's threshold. Plain JavaScript, like the writer.
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.worker.mjs';

// Without a schema name, a checkpoint copies back the WAL of every file of the connection, attached ones too.
const db = openConnection(workerData.path, workerData.attached);
// As the writer's: the checkpoint syncs the database files, the commits only append to the WALs.
for (const schema of ['main', ...workerData.attached.map((file) => file.schema)]) db.pragma(`${schema}.synchronous = NORMAL`);
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Tried again at the next pass; the writer's own checkpoints, far apart, are the safety net.
  }
}, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (!message.close) return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
