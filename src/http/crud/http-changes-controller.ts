import type { EntityClass } from "../../mapping/column-type.js";
import { EntityMapping } from "../../mapping/entity-mapping.js";
import { InvalidInputError } from "../../errors.js";
import { HttpController, type HttpControllerClass } from "../exchange/http-controller.js";
import { HttpForbiddenError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";
import type { HttpRouteDescriptions, JsonSchema } from "../openapi/openapi-types.js";
import { controllerRoutesOf } from "../routing/controller-routes.js";
import { Get } from "../routing/route-decorators.js";
import {
  answerChangeStream,
  type ChangeStreamEntity,
  type ChangeStreamSettings,
  defaultChangeStreamSettings,
  lastEventIdOf,
} from "./change-stream.js";
import { changeStreamDescription, changeWebhooks } from "./crud-descriptions.js";
import { CrudMessages } from "./crud-messages.js";
import type { HttpContext } from "./http-context.js";
import { requestPolicy } from "./policy-body.js";

/** One entity of the server's change stream: its class and the areas that guard its own change stream. */
interface FeedEntity {
  readonly mapping: EntityMapping;
  readonly areas: readonly string[];
}

const feedEntities = new WeakMap<Function, readonly FeedEntity[]>();

/**
 * The change stream of several entities at once (`GET {base}/changes` where the subclass is registered): the
 * changes of every entity controller in `feeds` whose entity has `@ChangeFeed` and whose own change stream the
 * caller may read (its areas), and of the caller's tenant, as one stream of Server-Sent Events, resumable as an
 * entity's is. A caller who may read none of them is refused (403); the others' changes never show. `where`
 * belongs to an entity's own stream (400 here).
 */
export abstract class HttpChangesController<C> extends HttpController<C> {
  /** The entity controllers (subclasses of `HttpEntityReadController`) whose changes the stream carries. */
  protected abstract readonly feeds: readonly HttpControllerClass<C>[];
  /** The request's session. */
  protected abstract get httpContext(): HttpContext;

  /** How the stream is paced and bounded. */
  protected get changeStreamSettings(): ChangeStreamSettings {
    return defaultChangeStreamSettings;
  }

  /** The OpenAPI description of the stream (`HttpDescribedController`). */
  static openApiDescription(_controller: Function, schemas: Record<string, JsonSchema> = {}): HttpRouteDescriptions {
    return {
      schemas,
      operations: { changes: changeStreamDescription("every entity with a change feed", ["Changes"], schemas) },
      webhooks: changeWebhooks,
    };
  }

  /** GET {base}: the changes of every entity of `feeds` the caller may read, as Server-Sent Events. */
  @Get()
  changes(): Promise<void> {
    if (this.request.param("where") !== undefined) throw new InvalidInputError(CrudMessages.changeWhereOnEntityOnly);
    const user = this.request.user;
    const context = this.httpContext;
    const tenant = context.unscoped ? undefined : context.onGetCurrentTenant?.();
    const entities: ChangeStreamEntity[] = [];
    let missing: string | undefined;
    for (const feed of this.#feedEntities()) {
      const lacking = feed.areas.find((area) => user?.hasArea(area) !== true);
      if (lacking !== undefined) {
        missing ??= lacking;
        continue;
      }
      // A caller without a tenant reads no scoped entity's changes (as it reads none of its rows).
      if (feed.mapping.tenantColumn !== undefined && !context.unscoped && (tenant === undefined || tenant === "")) continue;
      // Nor the changes of a governed entity whose policy grants it none.
      const policy = requestPolicy(context, feed.mapping);
      if (policy !== undefined && !policy.grants("changes")) continue;
      entities.push({ mapping: feed.mapping, conditions: [], policy });
    }
    if (entities.length === 0) throw new HttpForbiddenError(HttpMessages.areaRequired(missing ?? "", `GET ${this.request.path}`));
    return answerChangeStream(this.response, {
      database: context.database,
      entities,
      tenant: context.unscoped || tenant === "" ? undefined : tenant,
      lastEventId: lastEventIdOf(this.request),
      settings: this.changeStreamSettings,
      headOnly: this.request.method === "HEAD",
    });
  }

  #feedEntities(): readonly FeedEntity[] {
    const key = this.constructor;
    let entities = feedEntities.get(key);
    if (entities === undefined) {
      entities = [];
      for (const controller of this.feeds) {
        const route = controllerRoutesOf(controller).find((each) => each.methodName === "changes");
        const probe = Reflect.construct(controller, [undefined, undefined, undefined]) as { entityClass?: EntityClass<object> };
        if (route === undefined || probe.entityClass === undefined) continue;
        (entities as FeedEntity[]).push({ mapping: EntityMapping.of(probe.entityClass), areas: route.areas });
      }
      feedEntities.set(key, entities);
    }
    return entities;
  }
}
