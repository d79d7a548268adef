// The writer thread of the embedded SQLite store: it owns the one connection that writes, so that inserts,
// updates and commits (with their WAL appends) never run on the event loop that serves requests.
//
// The main thread sends statements without waiting for one another, in bundles; each names its transaction
// (0 for a statement outside any). One transaction runs at a time, as on any single connection: while one is
// open, statements of others wait here, in the order they came, and run once it ends. Statements are
// prepared once per SQL text. Plain JavaScript, so that it starts the same from src/ and from dist/.
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.worker.mjs';
import { defineDecimalFunctions } from './decimal-functions.worker.mjs';

const STATEMENT_CACHE_SIZE = 500;
const db = openConnection(workerData.path, workerData.attached);
for (const pragma of workerData.pragmas) db.pragma(pragma);
defineDecimalFunctions(db);
const statements = new Map();
/** The transaction that holds the connection, or 0. */
let active = 0;
const waiting = [];
/** Replies not sent yet: they leave together once what they answer has committed (settle). */
const replies = [];

function prepare(sql) {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}

/**
 * Several statements in one transaction, as one message: nothing else runs between them. A statement may say
 * what it must find, the rows it must change (`changes`) or the rows it must read (`rows`, as JSON): when it
 * does not, all of them are rolled back. Run while the bundle's transaction is open (runLoose), it is a
 * savepoint of that transaction (better-sqlite3 nests a transaction so).
 */
const runBatch = (statements) => db.transaction(() => statements.forEach(runExpecting))();

/**
 * A batch whose commit is on disk before it is answered (`synchronous = FULL` on every file for it), where a
 * write that follows in the other file must never outlive it, even through a power loss.
 */
function runBatchSynced(statements) {
  const schemas = ['main', ...(workerData.attached ?? []).map((file) => file.schema)];
  const before = schemas.map((schema) => db.pragma(`${schema}.synchronous`, { simple: true }));
  for (const schema of schemas) db.pragma(`${schema}.synchronous = FULL`);
  try {
    runBatch(statements);
  } finally {
    schemas.forEach((schema, i) => db.pragma(`${schema}.synchronous = ${before[i]}`));
  }
}

function runExpecting(s, index) {
  const statement = prepare(s.sql);
  if (s.rows !== undefined) {
    if (JSON.stringify(statement.all(s.parameters)) !== s.rows) throw unmet(index, 'read other rows than it expected');
    return;
  }
  const { changes } = statement.run(s.parameters);
  if (s.changes !== undefined && changes !== s.changes) throw unmet(index, `changed ${changes} rows where it expected ${s.changes}`);
}

const unmet = (index, what) => Object.assign(new Error(`Statement ${index} of the batch ${what}; the batch was rolled back.`), { code: 'BATCH_UNMET' });

function execute(message) {
  if (message.batch) {
    (message.synced ? runBatchSynced : runBatch)(message.batch);
    return { rows: [] };
  }
  const statement = prepare(message.sql);
  if (statement.reader) return { rows: statement.all(message.parameters) };
  const { changes, lastInsertRowid } = statement.run(message.parameters);
  return { changes, lastInsertRowid, rows: [] };
}

/** Errors do not cross threads whole: their message and SQLite code are what callers read. */
const errorReply = (id, error) => ({ id, error: { message: error.message, code: error.code } });

function handle(message) {
  if (message.close) {
    db.close();
    replies.push({ id: message.id, rows: [] });
    return;
  }
  let reply;
  try {
    // SQLite rolls a whole transaction back on some errors (a full disk, say): what the caller sends next for
    // it must fail, not run on its own outside any transaction.
    if (message.tx !== 0 && message.tx === active && !message.begin && !db.inTransaction && !message.end) {
      throw Object.assign(new Error('The transaction was rolled back after an error.'), { code: 'SQLITE_ABORT' });
    }
    reply = { id: message.id, ...execute(message) };
    if (message.begin) active = message.tx;
  } catch (error) {
    reply = errorReply(message.id, error);
  }
  // A transaction ends with its rollback whatever came of it, with its commit, or with a failed commit
  // that SQLite rolled back.
  if (message.end && (message.sql === 'rollback' || !reply.error || !db.inTransaction)) {
    if (db.inTransaction && message.sql === 'rollback') {
      try {
        db.exec('rollback');
      } catch {
        // Nothing more can be undone; the connection is what the next transaction needs.
      }
    }
    active = 0;
  }
  replies.push(reply);
}

/**
 * Statements outside any transaction that come in one bundle run together in one transaction of their own
 * (each still alone in its effect: SQLite undoes a failing statement and goes on), since a commit each would
 * write the same pages to the WAL again and again; so do the bundles that came while the thread was busy
 * (settle, below), and their batches, each in a savepoint, whole or not at all (its deferred foreign keys, which
 * the schema does not use, are checked at the shared commit). Their replies wait for that commit; should it
 * fail, every entry runs again on its own. Undefined while none is open; each entry holds the message, to run
 * it again, and its reply.
 */
let loose;

function runLoose(message) {
  if (!loose) {
    db.exec('begin');
    loose = [];
  }
  try {
    loose.push({ message, reply: { id: message.id, ...execute(message) } });
  } catch (error) {
    const failed = errorReply(message.id, error);
    if (db.inTransaction) loose.push({ message, reply: failed });
    else {
      // Some errors (a full disk, say) roll the whole transaction back, and with it the statements before:
      // those run again, each on its own, so that only the one at fault fails.
      const held = loose;
      loose = undefined;
      runEachAlone(held);
      replies.push(failed);
    }
  }
}

function endLoose() {
  if (!loose) return;
  const held = loose;
  loose = undefined;
  try {
    db.exec('commit');
    replies.push(...held.map(({ reply }) => reply));
  } catch {
    // A commit that fails undoes them all: each runs again on its own, and only the one at fault fails.
    if (db.inTransaction) db.exec('rollback');
    runEachAlone(held);
  }
}

/** Runs the held statements again, each outside any transaction, answering each with its own outcome. */
function runEachAlone(held) {
  for (const { message } of held) {
    try {
      replies.push({ id: message.id, ...execute(message) });
    } catch (error) {
      replies.push(errorReply(message.id, error));
    }
  }
}

/** Runs every held message that may run now, in order; `end`: and commits the statements run outside transactions. */
function drain(end = true) {
  for (let ready = next(); ready; ready = next()) {
    // A synced batch keeps a transaction of its own: its commit alone is made durable before it is answered.
    if (ready.tx === 0 && !ready.synced) runLoose(ready);
    else {
      endLoose();
      handle(ready);
    }
  }
  if (end) endLoose();
}

/** The next held message that may run now: the open transaction's, or any when none is open. */
function next() {
  const index = active === 0 ? (waiting.length > 0 ? 0 : -1) : waiting.findIndex((m) => m.tx === active);
  return index === -1 ? undefined : waiting.splice(index, 1)[0];
}

/**
 * Closing: the store is being destroyed, so no transaction can still commit. The open one is rolled back and
 * the statements held for transactions are refused; those outside any transaction run, then the connection
 * closes.
 */
function close(message) {
  if (active !== 0 && db.inTransaction) db.exec('rollback');
  active = 0;
  for (const held of waiting.splice(0)) {
    if (held.tx === 0) handle(held);
    else replies.push({ id: held.id, error: { message: 'The store closed before the transaction ended.' } });
  }
  handle(message);
}

/**
 * Messages come in bundles (all that the main thread had ready). The bundles that arrived while the thread
 * was busy are handled before the statements outside transactions commit, in one commit for all of them (a
 * commit writes every page it changed to the WAL, and the claims and groups of a busy server change the same
 * pages), then the replies leave as one. An immediate runs once the port has handed over the messages waiting
 * for it; a thread that never runs out of messages settles once what it holds has waited MAX_HOLD_MS, so no
 * reply waits longer than that and one message.
 */
const MAX_HOLD_MS = 1;
/** When the oldest reply not yet sent began to wait (its message arrived), or -1. */
let heldSince = -1;
let settling = false;

function settle() {
  settling = false;
  heldSince = -1;
  endLoose();
  if (replies.length > 0) parentPort.postMessage(replies.splice(0));
}

parentPort.on('message', (bundle) => {
  if (heldSince === -1) heldSince = performance.now();
  for (const message of bundle) {
    if (!message.close) waiting.push(message);
    else {
      drain();
      close(message);
    }
  }
  drain(false);
  if (performance.now() - heldSince >= MAX_HOLD_MS) settle();
  else if (!settling) {
    settling = true;
    setImmediate(settle);
  }
});
parentPort.postMessage({ ready: true });
