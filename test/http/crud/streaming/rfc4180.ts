// An RFC 4180 reader written for the tests, independently of Tenon's CSV writer: records end with CRLF (a
// lone LF is accepted too), fields are separated by commas, a field in double quotes may hold commas,
// quotes (doubled) and line breaks. Each field says whether it was quoted, so that the empty quoted field (the
// empty text) can be told from the empty unquoted one (null).

/** One field as read. */
export interface CsvCell {
  readonly text: string;
  readonly quoted: boolean;
}

/** Reads CSV text into records of fields; throws on text that breaks the grammar (a quote inside an unquoted field, an unclosed quote). */
export function readCsv(text: string): CsvCell[][] {
  const records: CsvCell[][] = [];
  let record: CsvCell[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let value = "";
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= n) throw new Error("an unclosed quoted field");
        const ch = text[i];
        if (ch === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += ch;
        i++;
      }
    } else {
      while (i < n && text[i] !== "," && text[i] !== "\r" && text[i] !== "\n") {
        if (text[i] === '"') throw new Error(`a quote inside an unquoted field at ${i}`);
        value += text[i];
        i++;
      }
    }
    record.push({ text: value, quoted });
    if (i >= n) break;
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text[i] === "\r" && text[i + 1] === "\n") i += 2;
    else if (text[i] === "\n") i++;
    else throw new Error(`a field followed by ${JSON.stringify(text[i])} at ${i}`);
    records.push(record);
    record = [];
  }
  if (record.length > 0) records.push(record);
  return records;
}
