import { HttpController, type HttpControllerClass } from "../exchange/http-controller.js";
import { HttpDefaults } from "../exchange/http-messages.js";
import type { HttpUser } from "../exchange/http-user.js";
import { AuthorizationType, Get, HttpAuthorizationType } from "../routing/route-decorators.js";

/**
 * The controller that serves the OpenAPI document, anonymous whatever the server's authentication (a client
 * generator or a reference page sends no credentials). `documentBytes` builds the document on the first
 * request and answers the same cached UTF-8 bytes from then on (no encoding per request). @internal
 */
export function openApiController<C>(documentBytes: () => Uint8Array): HttpControllerClass<C> {
  class OpenApiController extends HttpController<C> {
    @Get()
    @AuthorizationType(HttpAuthorizationType.None)
    openApi(): void {
      this.response.contentType = HttpDefaults.jsonContentType;
      this.response.setContentBytes(documentBytes());
    }
  }
  return OpenApiController;
}

/**
 * The controller that serves one caller's OpenAPI document (`HttpServer.serveCallerOpenApi`): it needs the
 * server's authentication like any other route, and answers `documentFor(request.user)`. @internal
 */
export function callerOpenApiController<C>(documentFor: (user: HttpUser | undefined) => Uint8Array): HttpControllerClass<C> {
  class CallerOpenApiController extends HttpController<C> {
    @Get()
    openApi(): void {
      this.response.contentType = HttpDefaults.jsonContentType;
      this.response.setContentBytes(documentFor(this.request.user));
    }
  }
  return CallerOpenApiController;
}
