import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpAuthenticationClass } from "./auth/http-authentication.js";
import { errorAnswerOf, newTaskId, serverErrorBody } from "./error-answer.js";
import type { HttpControllerClass } from "./http-controller.js";
import type { HttpCorsConfig } from "./http-cors-config.js";
import { HttpError, HttpForbiddenError, HttpMethodNotAllowedError, HttpUnauthorizedError } from "./http-errors.js";
import { HttpRequest } from "./http-request.js";
import { HttpResponse } from "./http-response.js";
import { HttpDefaults, HttpStatus, HttpTexts } from "./http-texts.js";
import type { HttpLogger } from "./logging/http-logger.js";
import { writePreflight, writeResponse } from "./response-writer.js";
import type { HttpRouter } from "./routing/http-router.js";

/** What the router holds for one route. @internal */
export interface RouteTarget<C> {
  readonly controller: HttpControllerClass<C>;
  readonly methodName: string;
  readonly params: "int32" | "string";
  readonly areas: readonly string[];
  readonly requiresAuthentication: boolean;
  /** `GET /api/x/? (Controller.method)`, for messages. */
  readonly description: string;
}

/** The settings a running server works with, frozen at `start()`. @internal */
export interface PipelineSettings<C> {
  readonly contextClass: new () => C;
  readonly router: HttpRouter<RouteTarget<C>>;
  readonly authentication: HttpAuthenticationClass<C> | undefined;
  /** Authenticate requests that match no route (so 401 comes before 404 and 405). */
  readonly authenticateUnknown: boolean;
  readonly allowMethodOverride: boolean;
  readonly maxRequestContentLength: number;
  readonly cors: HttpCorsConfig;
  readonly logger: HttpLogger<HttpRequest, HttpResponse> | undefined;
}

/** The optional hooks a context class may have. */
interface ContextHooks {
  attachRequest?(request: HttpRequest, response: HttpResponse): void;
  [Symbol.asyncDispose]?(): PromiseLike<void>;
  [Symbol.dispose]?(): void;
}

type HandlerHost = Record<string, (...args: unknown[]) => unknown>;

const routedMethods: ReadonlySet<string> = new Set(["GET", "POST", "PUT", "DELETE"]);
const int32Pattern = /^-?\d{1,10}$/;

/**
 * The per-request pipeline (SPEC.md 3): CORS preflight without a context; then body (bounded), the
 * context, the request log, resolution, authentication, areas, the handler, the answer, the response log,
 * and the context's disposal. Counts the requests in flight so that `stop()` can wait for them.
 * @internal
 */
export class RequestPipeline<C> {
  readonly #settings: PipelineSettings<C>;
  #inFlight = 0;
  #idleWaiters: (() => void)[] = [];
  /** Set by `stop()`: every answer from now on closes its connection. */
  closing = false;

  constructor(settings: PipelineSettings<C>) {
    this.#settings = settings;
  }

  /** The number of requests between arrival and the disposal of their context. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Resolves when no request is in flight. */
  whenIdle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** The `request` listener of the node:http servers. */
  readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const settings = this.#settings;
    if (req.method === "OPTIONS") {
      writePreflight(res, settings.cors, this.closing);
      return;
    }
    this.#inFlight++;
    const raw = req.rawHeaders;
    let declared = -1;
    let chunked = false;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      if (name.length === 14 && name.toLowerCase() === "content-length") declared = Number(raw[i + 1]);
      else if (name.length === 17 && name.toLowerCase() === "transfer-encoding") chunked = true;
    }
    const limit = settings.maxRequestContentLength;
    if (limit > 0 && declared > limit) {
      this.#run(req, res, undefined, true);
    } else if (!chunked && declared <= 0) {
      this.#run(req, res, undefined, false);
    } else {
      new BodyReader(this, req, res, limit).start();
    }
  };

  /** @internal Called by the body reader when the body is complete. */
  run(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    this.#run(req, res, body, false);
  }

  /** @internal Called by the body reader when the body passed the ceiling: log it as cut, drop the connection. */
  drop(req: IncomingMessage, body: Buffer | undefined): void {
    req.socket.destroy();
    if (body !== undefined) this.#settings.logger?.logRequest(new HttpRequest(req, req.method ?? "", body));
    this.#finished();
  }

  #run(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, tooLarge: boolean): void {
    this.#process(req, res, body, tooLarge).then(this.#onProcessed, this.#onProcessFailed);
  }

  readonly #onProcessed = (): void => {
    this.#finished();
  };

  readonly #onProcessFailed = (error: unknown): void => {
    reportInternalError(error);
    this.#finished();
  };

  #finished(): void {
    if (--this.#inFlight === 0 && this.#idleWaiters.length > 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  async #process(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, tooLarge: boolean): Promise<void> {
    const settings = this.#settings;
    let method = req.method ?? "";
    let overrideRefused = false;
    if (method === "POST") {
      const override = methodOverrideOf(req.rawHeaders);
      if (override !== undefined) {
        if (settings.allowMethodOverride) method = override.trim().toUpperCase();
        else overrideRefused = true;
      }
    }
    const request = new HttpRequest(req, method, body);
    const response = new HttpResponse();
    settings.logger?.logRequest(request);
    let context: C | undefined;
    let failed = false;
    let error: unknown;
    try {
      context = new settings.contextClass();
      (context as ContextHooks).attachRequest?.(request, response);
      if (tooLarge) throw new HttpError(HttpStatus.payloadTooLarge, HttpTexts.payloadTooLarge(settings.maxRequestContentLength));
      if (overrideRefused) throw new HttpError(HttpStatus.badRequest, HttpTexts.methodOverrideRefused);
      await this.#dispatch(request, response, context);
    } catch (caught) {
      failed = true;
      error = caught;
    }
    this.#answer(res, request, response, failed, error, tooLarge);
    if (context !== undefined) await disposeContext(context as ContextHooks);
  }

  async #dispatch(request: HttpRequest, response: HttpResponse, context: C): Promise<void> {
    const settings = this.#settings;
    const path = rawPathOf(request.uri);
    const match = settings.router.resolve(request.method, path);
    if (match === undefined) {
      if (settings.authenticateUnknown) await this.#authenticate(request, response, context);
      if (!routedMethods.has(request.method)) throw new HttpMethodNotAllowedError(request.method, request.path, []);
      const allow = settings.router.allowedMethods(path);
      if (allow.length > 0) throw new HttpMethodNotAllowedError(request.method, request.path, allow);
      throw new HttpError(HttpStatus.notFound, HttpTexts.commandNotFound(request.path));
    }
    const target = match.target;
    if (target.requiresAuthentication) await this.#authenticate(request, response, context);
    for (const area of target.areas) {
      if (request.user?.hasArea(area) !== true) throw new HttpForbiddenError(`Area ${area} is required by ${target.description}.`);
    }
    const args = target.params === "string" || match.args.length === 0 ? match.args : int32Args(match.args, request.path);
    const controller = new target.controller(context, request, response) as unknown as HandlerHost;
    let result = controller[target.methodName](...args);
    if (isThenable(result)) result = await result;
    if (result !== undefined && !response.isContentAssigned) {
      response.content = JSON.stringify(result);
      if (response.contentType === "") response.contentType = HttpDefaults.jsonContentType;
    }
  }

  async #authenticate(request: HttpRequest, response: HttpResponse, context: C): Promise<void> {
    const authenticationClass = this.#settings.authentication;
    if (authenticationClass === undefined) throw new HttpUnauthorizedError();
    const authentication = new authenticationClass(context);
    await authentication.check(request, response);
    if (request.user === undefined) throw new HttpUnauthorizedError(authentication.challenge);
  }

  #answer(res: ServerResponse, request: HttpRequest, response: HttpResponse, failed: boolean, error: unknown, closeConnection: boolean): void {
    const settings = this.#settings;
    let taskId = "";
    if (failed) {
      const answer = errorAnswerOf(error, request.path);
      response.reset(answer.status, answer.body, HttpDefaults.jsonContentType);
      for (const [name, value] of answer.headers) response.setHeader(name, value);
      taskId = answer.taskId;
    } else if (response.statusCode >= 500) {
      taskId = newTaskId();
      response.reset(response.statusCode, serverErrorBody(response.statusCode, taskId), HttpDefaults.jsonContentType);
    }
    const close = closeConnection || this.closing;
    try {
      writeResponse(res, response, settings.cors, close);
    } catch (writeError) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      error = writeError;
      taskId = newTaskId();
      response.reset(HttpStatus.internalServerError, serverErrorBody(HttpStatus.internalServerError, taskId), HttpDefaults.jsonContentType);
      writeResponse(res, response, settings.cors, close);
    }
    const logger = settings.logger;
    if (logger !== undefined) {
      logger.logResponse(request, response);
      if (response.statusCode >= 500) logger.logError(request, response, taskId, error);
    }
  }
}

/**
 * Reads a request body, bounded by the ceiling (SPEC.md 7 rule 1): a chunked or understated body that
 * grows past it is cut there and the connection is dropped without an answer.
 */
class BodyReader<C> {
  readonly #pipeline: RequestPipeline<C>;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #limit: number;
  readonly #chunks: Buffer[] = [];
  #length = 0;
  #settled = false;

  constructor(pipeline: RequestPipeline<C>, req: IncomingMessage, res: ServerResponse, limit: number) {
    this.#pipeline = pipeline;
    this.#req = req;
    this.#res = res;
    this.#limit = limit;
  }

  start(): void {
    this.#req.on("data", this.#onData).on("end", this.#onEnd).on("close", this.#onClose).on("error", this.#onError);
  }

  readonly #onData = (chunk: Buffer): void => {
    if (this.#settled) return;
    const limit = this.#limit;
    if (limit > 0 && this.#length + chunk.length > limit) {
      this.#chunks.push(chunk.subarray(0, limit - this.#length));
      this.#length = limit;
      this.#settled = true;
      this.#pipeline.drop(this.#req, Buffer.concat(this.#chunks, this.#length));
      return;
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  };

  readonly #onEnd = (): void => {
    if (this.#settled) return;
    this.#settled = true;
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.#length);
    this.#pipeline.run(this.#req, this.#res, body);
  };

  readonly #onClose = (): void => {
    if (this.#settled) return;
    // The client went away before the body was complete: nothing to answer, no context was built.
    this.#settled = true;
    this.#pipeline.drop(this.#req, undefined);
  };

  readonly #onError = (): void => {
    this.#onClose();
  };
}

/** The path part of a request target (absolute-form targets reduced to their path). */
function rawPathOf(uri: string): string {
  const query = uri.indexOf("?");
  const path = query < 0 ? uri : uri.slice(0, query);
  if (path.charCodeAt(0) === 47) return path;
  try {
    return new URL(path).pathname;
  } catch {
    return path;
  }
}

/** The first of the three method-override headers (SPEC.md 4.4), in the order sent. */
function methodOverrideOf(raw: readonly string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length < 13 || name.length > 22) continue;
    const lower = name.toLowerCase();
    if (lower === "x-http-method-override" || lower === "x-http-method" || lower === "x-method-override") return raw[i + 1];
  }
  return undefined;
}

function int32Args(values: readonly string[], path: string): number[] {
  const args: number[] = [];
  for (const value of values) {
    const number = int32Pattern.test(value) ? Number(value) : Number.NaN;
    if (!(number >= -2147483648 && number <= 2147483647)) {
      throw new HttpError(HttpStatus.badRequest, HttpTexts.invalidInt32Segment(value, path));
    }
    args.push(number);
  }
  return args;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

async function disposeContext(context: ContextHooks): Promise<void> {
  try {
    if (typeof context[Symbol.asyncDispose] === "function") await context[Symbol.asyncDispose]!();
    else if (typeof context[Symbol.dispose] === "function") context[Symbol.dispose]!();
  } catch (error) {
    process.emitWarning(`Tenon: disposing a request context failed: ${String(error)}`, "TenonWarning");
  }
}

function reportInternalError(error: unknown): void {
  process.emitWarning(`Tenon: a request failed inside the server: ${String(error)}`, "TenonWarning");
}
