import { InvalidInputError } from "../../errors.js";
import type { EntityClass } from "../../mapping/column-type.js";
import { HttpBulkItemError, HttpImportRefusedError, type HttpRefusedLine } from "../exchange/http-errors.js";
import { CrudMessages } from "./crud-messages.js";
import type { HttpContext } from "./http-context.js";
import { NdjsonLineError, type NdjsonLine } from "./ndjson-lines.js";

/** What an NDJSON import answers: the number of rows it inserted. */
export interface HttpEntityImportResult {
  /** The number of lines inserted (every non-blank line of the body). */
  readonly imported: number;
}

/** How an import runs (the writer's settings and its bulk insert). */
export interface ImportSettings<T extends object> {
  readonly context: HttpContext;
  readonly entityClass: EntityClass<T>;
  /** Lines written per batch (one batched insert each). */
  readonly batchSize: number;
  /** Refused lines reported at most; reading stops at this many. */
  readonly maxRefusedLines: number;
  /**
   * Inserts a batch as the bulk route inserts its list (writer events, entity events, validation, one batched
   * INSERT per 1,000 rows); a failing item throws `HttpBulkItemError` with its index in the batch, anything else
   * (a 5xx, a transient failure) throws as it is.
   */
  readonly insertBatch: (entities: T[]) => Promise<void>;
}

/**
 * Inserts one entity per line, in one transaction, all or nothing: the lines are read as they arrive, converted
 * (`fromJson`) and inserted `batchSize` at a time through the bulk path; each batch's entities are then let go
 * (the session's identity map cleared), so memory holds one batch. A line that is not JSON, does not convert,
 * or whose insert fails stops the writing; the lines after it are still read and checked (JSON and
 * conversion) up to `maxRefusedLines` refused lines, and then the transaction rolls back and the import is
 * refused with every refused line (`HttpImportRefusedError`). The work is never retried: its body cannot be
 * read twice.
 */
export async function importLines<T extends object>(
  lines: AsyncIterable<NdjsonLine>,
  settings: ImportSettings<T>,
): Promise<HttpEntityImportResult> {
  const { context, entityClass } = settings;
  const refused: HttpRefusedLine[] = [];
  let more = false;
  let imported = 0;
  const result = await context.transaction(
    async () => {
      let batch: T[] = [];
      let numbers: number[] = [];
      const flush = async (): Promise<void> => {
        try {
          await settings.insertBatch(batch);
          imported += batch.length;
        } catch (error) {
          if (!(error instanceof HttpBulkItemError)) throw error;
          refused.push({ line: numbers[error.index] ?? numbers[0], cause: error.cause });
        }
        batch = [];
        numbers = [];
        // The batch is written: its entities (and what they loaded) need not stay in memory.
        context.clear();
      };
      try {
        for await (const line of lines) {
          if (refused.length >= settings.maxRefusedLines) {
            more = true;
            break;
          }
          let json: unknown;
          try {
            json = JSON.parse(line.text);
          } catch {
            refused.push({ line: line.number, cause: new InvalidInputError(CrudMessages.importLineNotJson(line.number)) });
            continue;
          }
          let entity: T;
          try {
            entity = await context.fromJson(entityClass, json);
          } catch (error) {
            if (!(error instanceof InvalidInputError)) throw error;
            refused.push({ line: line.number, cause: error });
            continue;
          }
          // Once a line is refused nothing more is written: the rest is only checked.
          if (refused.length > 0) continue;
          batch.push(entity);
          numbers.push(line.number);
          if (batch.length >= settings.batchSize) await flush();
        }
      } catch (error) {
        if (!(error instanceof NdjsonLineError)) throw error;
        // A line that cannot be read ends the reading.
        refused.push({ line: error.line, cause: error });
        more = true;
      }
      if (refused.length === 0 && batch.length > 0) await flush();
      if (refused.length > 0) throw new HttpImportRefusedError(refused, more);
      return { imported };
    },
    { retry: false },
  );
  return result;
}
