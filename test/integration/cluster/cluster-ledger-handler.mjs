// The handler of the cluster scenarios' pollers (`local:`): appends one line per record to $LEDGER_FILE
// when the batch arrives, then waits $HANDLER_DELAY_MS and succeeds. A line is
// "messageId queueId queueOffset brokerName atMs batch shardKey seq": the first three fields are those of
// the fault suite's ledger (test/fixtures/config/handlers/ledger.mjs); a queue id alone is ambiguous in a
// cluster (every broker group has a queue 0), the arrival time orders the lines of several pollers' files,
// the batch number (per process) groups a batch's lines, and shardKey/seq are the message's user
// properties of the same names ("-" when absent).
import { appendFileSync } from 'node:fs';

let batches = 0;

export async function handler(event) {
  const file = process.env.LEDGER_FILE;
  if (!file) throw new Error('LEDGER_FILE is not set');
  const atMs = Date.now();
  batches += 1;
  const lines = event.Records.map((r) => {
    const shardKey = r.properties?.shardKey ?? '-';
    const seq = r.properties?.seq ?? '-';
    return `${r.messageId} ${r.queueId} ${r.queueOffset} ${r.brokerName} ${atMs} ${batches} ${shardKey} ${seq}\n`;
  });
  appendFileSync(file, lines.join(''));
  const delayMs = Number(process.env.HANDLER_DELAY_MS ?? '0');
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  return {};
}
