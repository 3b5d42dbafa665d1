/** Joins a base path and a path with one `/` between them (`/api` + `companies/?`); `/` when both are empty. @internal */
export function joinPath(base: string, path: string): string {
  const left = base.replace(/\/+$/, "");
  const right = path.replace(/^\/+/, "");
  if (right === "") return left === "" ? "/" : left;
  return `${left}/${right}`;
}
