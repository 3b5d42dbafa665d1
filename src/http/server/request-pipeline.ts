import type { IncomingMessage, ServerResponse } from "node:http";
import { errorAnswerOf, newTaskId, serverErrorBody } from "./error-answer.js";
import type { HttpCorsConfig } from "./http-cors-config.js";
import { HttpClientGoneError, HttpError } from "../exchange/http-errors.js";
import { isHeaderName } from "../exchange/header-name.js";
import { HttpRequest, mediaTypeOf, type RequestServices } from "../exchange/http-request.js";
import { HttpResponse } from "../exchange/http-response.js";
import { HttpDefaults, HttpStatus, HttpMessages } from "../exchange/http-messages.js";
import type { HttpLogger } from "../logging/http-logger.js";
import { BodyReader, BodyWatch } from "./body-reader.js";
import type { TrustedProxyRule } from "../exchange/client-ip.js";
import { writeClientError, writePreflight, writeResponse, writeStreamHead } from "./response-writer.js";
import { OpenStreams } from "./response-stream.js";
import { ResultJson } from "./result-json.js";
import type { RequestObserver } from "../exchange/request-observer.js";
import { type DispatchSettings, RequestDispatcher } from "./request-dispatch.js";
import {
  abortWhenGone,
  type ContextHooks,
  disposeContext,
  isHost,
  methodOverrideOf,
  reportDisposeError,
  reportInternalError,
  rawPathOf,
  serializeResult,
} from "./pipeline-steps.js";

/** The first `Content-Type` of raw headers, or undefined. */
function contentTypeOf(raw: readonly string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (isHeaderName(name, "content-type")) return raw[i + 1];
  }
  return undefined;
}

/** Writes the JSON of async handlers' results (their route is not known where they settle). */
const laterResults = new ResultJson();

/** Whether an answer closes its connection: a body refused for its size, or a streamed body its handler left unread. */
function closes(tooLarge: boolean, streamed: number | undefined, request: HttpRequest): boolean {
  return tooLarge || (streamed !== undefined && !request.bodyComplete);
}

/** `RequestPipeline.readArrived`, as `nextTick` calls it (a plain function and its arguments: no closure). */
function readArrivedBody<C>(
  pipeline: RequestPipeline<C>,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  declared: number,
): void {
  pipeline.readArrived(req, res, limit, declared);
}

/** The settings a running server works with, frozen at `start()`. @internal */
export interface PipelineSettings<C> extends DispatchSettings<C> {
  /** Answers a new context for a request (a class or a factory, already told apart). */
  readonly createContext: () => C;
  readonly allowMethodOverride: boolean;
  readonly maxRequestContentLength: number;
  /** The ceiling of a body a route reads as a stream (0: none). */
  readonly maxStreamedContentLength: number;
  /** The media types some route reads as a stream (`HttpRouteOptions.streamedBody`): empty when none does. */
  readonly streamedMediaTypes: ReadonlySet<string>;
  readonly cors: HttpCorsConfig;
  readonly logger: HttpLogger<HttpRequest, HttpResponse> | undefined;
  /** Which peers' `X-Forwarded-For` is believed. */
  readonly isTrustedProxy: TrustedProxyRule;
  /** The initial allowance of a body, in ms (0: bodies are not watched). */
  readonly bodyTimeout: number;
  /** The bytes of body that earn one more second. */
  readonly minBodyDataRate: number;
  /** Metrics, tracing and the slow request log; undefined when all are off. */
  readonly observer: RequestObserver | undefined;
}

/**
 * The per-request pipeline (stage by stage in ARCHITECTURE.md): CORS preflight without a context; then body (bounded), the
 * context, the request log, resolution, authentication, areas, the handler, the answer, the response log,
 * and the context's disposal. Counts the requests in flight so that `stop()` can wait for them.
 * @internal
 */
export class RequestPipeline<C> {
  readonly #settings: PipelineSettings<C>;
  /** The last `Content-Type` `#streamsBody` read, and its media type if a route streams bodies of it (else undefined). */
  #lastContentType = "";
  #lastStreamedType: string | undefined = undefined;
  readonly #dispatcher: RequestDispatcher<C>;
  readonly #services: RequestServices;
  readonly #bodyWatch: BodyWatch;
  #inFlight = 0;
  #idleWaiters: (() => void)[] = [];
  readonly #streams = new OpenStreams();
  /** Set by `stop()`: every answer from now on closes its connection. */
  closing = false;

  constructor(settings: PipelineSettings<C>) {
    this.#settings = settings;
    this.#dispatcher = new RequestDispatcher(settings);
    const logger = settings.logger;
    this.#services = {
      isTrustedProxy: settings.isTrustedProxy,
      logAction: logger === undefined ? undefined : (host, message, requestId) => logger.logAction(host, message, "", requestId),
    };
    this.#bodyWatch = new BodyWatch(settings.bodyTimeout, settings.minBodyDataRate);
  }

  /** Stops the body watch's clock (the server stopped). */
  close(): void {
    this.#bodyWatch.close();
  }

  /** Ends every streamed body being sent (the server is stopping): their requests then complete. */
  endStreams(): void {
    this.#streams.endAll();
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
      if (settings.observer === undefined) writePreflight(res, settings.cors, this.closing);
      else this.#observedPreflight(req, res, settings.observer);
      return;
    }
    this.#inFlight++;
    const raw = req.rawHeaders;
    let declared = -1;
    let chunked = false;
    let host = false;
    let contentType: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      if (name.length === 4) host ||= isHost(name);
      else if (name.length === 14 && isHeaderName(name, "content-length")) declared = Number(raw[i + 1]);
      else if (name.length === 12 && contentType === undefined && isHeaderName(name, "content-type")) contentType = raw[i + 1];
      else if (name.length === 17 && isHeaderName(name, "transfer-encoding")) chunked = true;
    }
    if (!host && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
      // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400 (node:http's own answer would have no body).
      writeClientError(res, settings.cors, HttpStatus.badRequest, HttpMessages.missingHost);
      this.#finished();
      return;
    }
    const limit = settings.maxRequestContentLength;
    if (!chunked && declared <= 0) {
      this.#run(req, res, undefined, false);
    } else if (settings.streamedMediaTypes.size > 0 && this.#streamsBody(req, contentType)) {
      const ceiling = settings.maxStreamedContentLength;
      this.#run(req, res, undefined, ceiling > 0 && declared > ceiling, ceiling);
    } else if (limit > 0 && declared > limit) {
      this.#run(req, res, undefined, true);
    } else if (!chunked) {
      // The body usually comes in the same packet as the head: node:http's parser pushes it into the request stream
      // after this listener returns, and runs the queued ticks after each step, so a tick finds it there.
      // The global `process`: importing node:process instead reads every property of it once (its ESM facade),
      // `allowedNodeEnvironmentFlags` and `report` among them, some 10M instructions of every server's start-up.
      process.nextTick(readArrivedBody, this, req, res, limit, declared);
    } else {
      new BodyReader(this, req, res, limit, this.#bodyWatch).start();
    }
  };

  /**
   * @internal A tick after a request's head: a body of `declared` bytes (its Content-Length, within the ceiling)
   * that came whole with the head is taken from the request stream at once (no listeners, no reader, no watch);
   * one still arriving is read as it comes. The parser never holds more than the declared length.
   */
  readArrived(req: IncomingMessage, res: ServerResponse, limit: number, declared: number): void {
    if (req.readableLength === declared && !req.destroyed) {
      const body = req.read(declared) as Buffer | null;
      if (body !== null) {
        this.#run(req, res, body, false);
        return;
      }
    }
    new BodyReader(this, req, res, limit, this.#bodyWatch).start();
  }

  /**
   * Whether the route a request goes to reads bodies of its media type as a stream (`HttpRouteOptions.streamedBody`);
   * `contentType` is the request's first `Content-Type`, read from the raw headers (`req.headers` would build node's
   * header object for every request with a body).
   */
  #streamsBody(req: IncomingMessage, contentType = contentTypeOf(req.rawHeaders)): boolean {
    if (contentType === undefined) return false;
    // The media type of the last Content-Type seen, when some route streams it: the usual request repeats its header.
    let type: string | undefined;
    if (contentType === this.#lastContentType) type = this.#lastStreamedType;
    else {
      const media = mediaTypeOf(contentType);
      type = this.#settings.streamedMediaTypes.has(media) ? media : undefined;
      this.#lastContentType = contentType;
      this.#lastStreamedType = type;
    }
    if (type === undefined) return false;
    const match = this.#settings.router.resolve(req.method ?? "", rawPathOf(req.url ?? "/"));
    return match?.target.streamedBody?.has(type) === true;
  }

  /**
   * The body ceiling of a request, as its headers and route decide: the streamed ceiling for a body a route
   * reads as a stream, `maxRequestContentLength` otherwise (asked before `100 Continue` is sent). @internal
   */
  readonly bodyCeilingOf = (req: IncomingMessage): number =>
    this.#settings.streamedMediaTypes.size > 0 && this.#streamsBody(req)
      ? this.#settings.maxStreamedContentLength
      : this.#settings.maxRequestContentLength;

  /** @internal Called by the body reader when the body is complete. */
  run(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    this.#run(req, res, body, false);
  }

  /** @internal Called by the body reader when the body passed the ceiling: log it as cut, drop the connection. */
  drop(req: IncomingMessage, body: Buffer | undefined): void {
    if (body !== undefined) this.#settings.logger?.logRequest(new HttpRequest(req, req.method ?? "", body, this.#services));
    req.socket.destroy();
    this.#finished();
  }

  /**
   * A CORS preflight while the operations features watch: answered as without them, and counted (metrics, a
   * tracing span) as a request of its own, `OPTIONS` with no route. Like every preflight it runs no context and
   * writes no log record.
   */
  #observedPreflight(req: IncomingMessage, res: ServerResponse, observer: RequestObserver): void {
    const request = new HttpRequest(req, "OPTIONS", undefined, this.#services);
    const observation = observer.begin(request);
    writePreflight(res, this.#settings.cors, this.closing);
    const response = new HttpResponse();
    response.statusCode = res.statusCode;
    observer.end(observation, request, response);
  }

  /** @internal Called by the body reader when the body came too slowly: 408, logged, and the connection closed. */
  expire(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const logger = this.#settings.logger;
    const request = new HttpRequest(req, req.method ?? "", body, this.#services);
    const observer = this.#settings.observer;
    if (observer !== undefined) request.observation = observer.begin(request);
    logger?.logRequest(request);
    const response = new HttpResponse();
    const status = HttpStatus.requestTimeout;
    response.reset(status, JSON.stringify({ status, message: HttpMessages.requestTimeout }), HttpDefaults.jsonContentType);
    try {
      if (res.headersSent) res.destroy();
      else writeResponse(res, response, this.#settings.cors, true, request.requestId);
    } catch (error) {
      reportInternalError(error);
      res.destroy();
    }
    if (request.observation !== undefined) observer?.end(request.observation, request, response);
    logger?.logResponse(request, response);
    this.#finished();
  }

  #run(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, tooLarge: boolean, streamed?: number): void {
    try {
      this.#process(req, res, body, tooLarge, streamed);
    } catch (error) {
      // Only the steps before the context can throw here; nothing was answered or counted down yet.
      reportInternalError(error);
      res.destroy();
      this.#finished();
    }
  }

  readonly #onDisposed = (): void => {
    this.#finished();
  };

  readonly #onDisposeFailed = (error: unknown): void => {
    reportDisposeError(error);
    this.#finished();
  };

  #finished(): void {
    if (--this.#inFlight === 0 && this.#idleWaiters.length > 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /**
   * Runs one request. The whole path stays synchronous until something is asynchronous (authentication,
   * an async handler, an async disposal), so a plain handler costs no promise of the server's own.
   */
  #process(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, tooLarge: boolean, streamed: number | undefined): void {
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
    const request = new HttpRequest(req, method, body, this.#services);
    // A body the route reads as a stream: its handler reads it; a connection whose body is left unread closes.
    if (streamed !== undefined) request.streamBody(streamed, settings.bodyTimeout);
    const response = new HttpResponse();
    const observer = settings.observer;
    if (observer !== undefined) request.observation = observer.begin(request);
    settings.logger?.logRequest(request);
    let context: C | undefined;
    let pending: void | Promise<unknown> | HttpError;
    try {
      context = settings.createContext();
      (context as ContextHooks).attachRequest?.(request, response);
      if (tooLarge)
        throw new HttpError(HttpStatus.payloadTooLarge, HttpMessages.payloadTooLarge(streamed ?? settings.maxRequestContentLength));
      if (overrideRefused) throw new HttpError(HttpStatus.badRequest, HttpMessages.methodOverrideRefused);
      if (observer === undefined || !observer.wrapsDispatch) pending = this.#dispatcher.dispatch(request, response, context);
      else {
        const built = context;
        pending = observer.run(request.observation!, request, () => this.#dispatcher.dispatch(request, response, built));
      }
    } catch (error) {
      this.#complete(res, request, response, context, closes(tooLarge, streamed, request), true, error);
      return;
    }
    if (pending === undefined) {
      this.#complete(res, request, response, context, closes(tooLarge, streamed, request), false, undefined);
    } else if (pending instanceof HttpError) {
      // a request no route answers, refused without a throw (`RequestDispatcher.dispatch`)
      this.#complete(res, request, response, context, closes(tooLarge, streamed, request), true, pending);
    } else {
      const built = context;
      if (typeof (built as ContextHooks).abort === "function") abortWhenGone(res, built as ContextHooks);
      // One reaction for the handler's promise: its value is serialized here, then the answer is sent.
      pending.then(
        (value: unknown) => {
          try {
            serializeResult(response, value, laterResults);
          } catch (error) {
            this.#complete(res, request, response, built, closes(tooLarge, streamed, request), true, error);
            return;
          }
          this.#complete(res, request, response, built, closes(tooLarge, streamed, request), false, undefined);
        },
        (error: unknown) => this.#complete(res, request, response, built, closes(tooLarge, streamed, request), true, error),
      );
    }
  }

  /** Answers, logs the response, disposes the context and counts the request down. */
  #complete(
    res: ServerResponse,
    request: HttpRequest,
    response: HttpResponse,
    context: C | undefined,
    closeConnection: boolean,
    failed: boolean,
    error: unknown,
  ): void {
    if (!failed && response.streamProducer !== undefined && response.statusCode < 400) {
      this.#stream(res, request, response, context, closeConnection);
      return;
    }
    try {
      this.#answer(res, request, response, failed, error, closeConnection);
    } catch (internal) {
      reportInternalError(internal);
      res.destroy();
    }
    const disposal = context === undefined ? undefined : disposeContext(context as ContextHooks);
    if (disposal === undefined) this.#finished();
    else disposal.then(this.#onDisposed, this.#onDisposeFailed);
  }

  /** Sends a streamed answer: its head, then its body until the producer returns; then logs, disposes and counts down. */
  #stream(res: ServerResponse, request: HttpRequest, response: HttpResponse, context: C | undefined, closeConnection: boolean): void {
    const settings = this.#settings;
    const producer = response.streamProducer;
    let streaming: Promise<void> = Promise.resolve();
    try {
      writeStreamHead(res, response, settings.cors, closeConnection || this.closing, request.requestId);
      if (producer !== undefined && request.method !== "HEAD") {
        streaming = this.#streams.run(res, producer).then((outcome) => {
          if (outcome.failed) this.#streamFailed(res, request, response, outcome.error);
          else if (!res.destroyed && !res.writableEnded) res.end();
        });
      } else res.end();
    } catch (internal) {
      reportInternalError(internal);
      res.destroy();
    }
    const finish = (): void => {
      if (request.observation !== undefined) settings.observer?.end(request.observation, request, response);
      settings.logger?.logResponse(request, response);
      const disposal = context === undefined ? undefined : disposeContext(context as ContextHooks);
      if (disposal === undefined) this.#finished();
      else disposal.then(this.#onDisposed, this.#onDisposeFailed);
    };
    streaming.then(finish, finish);
  }

  /**
   * A streamed body whose producer failed after the head was sent: the client is told as the stream's failure
   * mode says (the body ended, cut, or ended with a trailer holding the error body), and a failure answered
   * 500 or above is logged with its task id (a process warning without a log writer). Nothing is sent to a
   * client that has gone.
   */
  #streamFailed(res: ServerResponse, request: HttpRequest, response: HttpResponse, error: unknown): void {
    // A client that has gone is why most producers stop early: nothing failed that anyone could be told of.
    if (res.destroyed || res.writableEnded) return;
    const answer = errorAnswerOf(error, request.path);
    const mode = response.streamOptions?.onFailure ?? "end";
    try {
      // The connection ends after what was written went out, without the chunked body's last chunk.
      if (mode === "abort") endWithoutLastChunk(res);
      else res.end(mode === "end" ? undefined : mode({ status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> }));
    } catch (internal) {
      reportInternalError(internal);
      res.destroy();
    }
    if (answer.status < 500) return;
    const logger = this.#settings.logger;
    if (logger === undefined) reportInternalError(error);
    else logger.logError(request, response, answer.taskId, error);
  }

  #answer(
    res: ServerResponse,
    request: HttpRequest,
    response: HttpResponse,
    failed: boolean,
    error: unknown,
    closeConnection: boolean,
  ): void {
    const settings = this.#settings;
    if (failed && error instanceof HttpClientGoneError) {
      this.#logGone(res, request, response, error);
      return;
    }
    let taskId = "";
    if (failed) {
      const answer = errorAnswerOf(error, request.path);
      const limits = settings.rateLimiter === undefined ? undefined : rateLimitHeadersOf(response);
      response.reset(answer.status, answer.body, HttpDefaults.jsonContentType);
      for (const [name, value] of answer.headers) response.setHeader(name, value);
      if (limits !== undefined) keepRateLimitHeaders(response, limits);
      taskId = answer.taskId;
    } else if (response.statusCode >= 500) {
      taskId = newTaskId();
      const limits = settings.rateLimiter === undefined ? undefined : rateLimitHeadersOf(response);
      response.reset(response.statusCode, serverErrorBody(response.statusCode, taskId), HttpDefaults.jsonContentType);
      if (limits !== undefined) keepRateLimitHeaders(response, limits);
    }
    const close = closeConnection || this.closing;
    try {
      writeResponse(res, response, settings.cors, close, request.requestId);
    } catch (writeError) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      error = writeError;
      taskId = newTaskId();
      response.reset(HttpStatus.internalServerError, serverErrorBody(HttpStatus.internalServerError, taskId), HttpDefaults.jsonContentType);
      writeResponse(res, response, settings.cors, close, request.requestId);
    }
    if (request.observation !== undefined) settings.observer?.end(request.observation, request, response);
    const logger = settings.logger;
    if (logger !== undefined) {
      logger.logResponse(request, response);
      if (response.statusCode >= 500) logger.logError(request, response, taskId, error);
    }
  }

  /**
   * A request whose client left before its handler ran: nothing is sent (there is nobody to send it to); the
   * response log and the metrics record the status 499, and an action line under the request's id says why.
   */
  #logGone(res: ServerResponse, request: HttpRequest, response: HttpResponse, error: HttpClientGoneError): void {
    res.destroy();
    response.reset(error.status, JSON.stringify({ status: error.status, message: error.message }), HttpDefaults.jsonContentType);
    const settings = this.#settings;
    if (request.observation !== undefined) settings.observer?.end(request.observation, request, response);
    const logger = settings.logger;
    if (logger !== undefined) {
      logger.logResponse(request, response);
      logger.logAction(request.host, error.message, "", request.requestId);
    }
  }
}

/** The rate-limit headers the limits set on a response, if they set them. */
function rateLimitHeadersOf(response: HttpResponse): readonly [policy: string, state: string] | undefined {
  const policy = response.header("RateLimit-Policy");
  const state = response.header("RateLimit");
  return policy === undefined || state === undefined ? undefined : [policy, state];
}

/**
 * Puts the limits' headers back on an error answer (which drops what was set before it): every answer to a
 * limited request says the limits' state, errors included; a 429 keeps its own.
 */
function keepRateLimitHeaders(response: HttpResponse, [policy, state]: readonly [string, string]): void {
  if (response.header("RateLimit") !== undefined) return;
  response.setHeader("RateLimit-Policy", policy);
  response.setHeader("RateLimit", state);
}

/**
 * Ends a streamed body so that its client sees it incomplete: its connection is closed once what was written has
 * gone out (destroying it at once would drop that too), and the chunked encoding's last chunk is never sent.
 */
function endWithoutLastChunk(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null || socket.destroyed) {
    res.destroy();
    return;
  }
  // Chunks written in this tick may still be held by the response: Node.js 20 corks the socket until the next
  // tick, Node.js 26 the response itself (its chunked buffer), which the socket's end would never send.
  while (res.writableCorked > 0) res.uncork();
  socket.end();
}
