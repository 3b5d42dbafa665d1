// @OpenApi on handlers of one's own: bodies as an entity class, an array of one or a JSON Schema, summary,
// tags, extra answers; a handler without it still appears with an unconstrained body; and the generic PATCH
// of an entity without a version column does not ask for one.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Column, PrimaryKey, Required, Sequence, Table, Type } from "tenon";
import {
  AuthorizationType,
  Get,
  HttpAuthorizationType,
  HttpController,
  type HttpContext,
  HttpEntityController,
  HttpServer,
  OpenApi,
  Post,
  Uri,
} from "tenon/http";
import { Category } from "../crud/crud-fixtures.js";

class Ctx {}

/** An entity without a version column. */
@Table("Notes")
@Sequence("NotesID")
class Note {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Required() @Column("Text", Type.varchar(200)) text = "";
}

class NoteController extends HttpEntityController<Ctx, Note> {
  protected readonly entityClass = Note;
  protected get httpContext(): HttpContext {
    throw new Error("not served in this test");
  }
  /** A route of its own beside the generic ones. */
  @Get("latest")
  @OpenApi({ summary: "The latest note.", responseBody: Note, answers: [409] })
  latest(): unknown {
    return {};
  }
}

@Uri("/reports")
@AuthorizationType(HttpAuthorizationType.None)
class ReportController extends HttpController<Ctx> {
  @Post("categories")
  @OpenApi({
    summary: "Categories matching a text.",
    description: "Searches titles.",
    tags: ["Reports"],
    requestBody: { type: "object", required: ["text"], properties: { text: { type: "string" } } },
    responseBody: [Category],
    status: 201,
  })
  categories(): unknown {
    return [];
  }

  @Post("plain")
  plain(): unknown {
    return {};
  }

  @Get("page")
  @OpenApi({ responseBody: { type: "string" }, responseMediaTypes: ["text/html"] })
  page(): void {}

  @Post("import")
  @OpenApi({ requestBody: { type: "string" }, requestMediaTypes: ["text/csv", "application/x-ndjson"] })
  import(): unknown {
    return {};
  }
}

type Operation = {
  summary?: string;
  description?: string;
  tags: string[];
  requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};

function documentOf(): { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } } {
  const server = new HttpServer(Ctx);
  server.allowAnonymous = true;
  server.registerController(ReportController);
  server.registerController(NoteController, "/notes");
  return server.openApi() as never;
}

describe("@OpenApi and the descriptions of routes of one's own", () => {
  test("bodies given as a JSON Schema and as an array of an entity class, with summary, tags and a 201", async () => {
    const document = documentOf();
    const result = await new Validator().validate(structuredClone(document) as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    const operation = document.paths["/reports/categories"].post;
    assert.equal(operation.summary, "Categories matching a text.");
    assert.match(operation.description ?? "", /^Searches titles\.\n\nAnonymous/);
    assert.deepEqual(operation.tags, ["Reports"]);
    assert.deepEqual(operation.requestBody?.required, true);
    assert.deepEqual(operation.requestBody?.content["application/json"].schema, {
      type: "object",
      required: ["text"],
      properties: { text: { type: "string" } },
    });
    assert.equal(operation.responses["200"], undefined);
    assert.deepEqual(operation.responses["201"].content?.["application/json"].schema, {
      type: "array",
      items: { $ref: "#/components/schemas/Category" },
    });
    assert.ok(document.components.schemas.Category !== undefined, "the entity's component is added");
  });

  test("a handler without @OpenApi appears with an unconstrained body, tagged with its controller", () => {
    const operation = documentOf().paths["/reports/plain"].post;
    assert.deepEqual(operation.requestBody, { required: false, content: { "application/json": { schema: {} } } });
    assert.deepEqual(operation.responses["200"].content?.["application/json"].schema, {});
    assert.deepEqual(operation.tags, ["ReportController"]);
  });

  test("on a generic controller a route of its own gets its entity body and its extra answers; the generic routes keep theirs", () => {
    const document = documentOf();
    const latest = document.paths["/notes/latest"].get;
    assert.deepEqual(latest.responses["200"].content?.["application/json"].schema, { $ref: "#/components/schemas/Note" });
    assert.ok(latest.responses["409"] !== undefined, "answers: [409] adds the answer to a GET");
    assert.deepEqual(document.paths["/notes"].get.responses["200"].content?.["application/json"].schema, {
      $ref: "#/components/schemas/NotePage",
    });
  });

  test("the PATCH of an entity requires no member (its version may come from If-Match), and says so where it has a version", () => {
    const document = documentOf();
    const patch = document.paths["/notes/{id}"].patch;
    assert.deepEqual(patch.requestBody?.content["application/json"].schema, { type: "object" });
    assert.doesNotMatch(patch.summary ?? "", /version/i);
    const server = new HttpServer(Ctx);
    server.allowAnonymous = true;
    class CategoryController extends HttpEntityController<Ctx, Category> {
      protected readonly entityClass = Category;
      protected get httpContext(): HttpContext {
        throw new Error("not served in this test");
      }
    }
    server.registerController(CategoryController, "/categories");
    const versioned = (server.openApi() as never as ReturnType<typeof documentOf>).paths["/categories/{id}"].patch;
    assert.deepEqual(versioned.requestBody?.content["application/json"].schema, { type: "object" });
    assert.match(versioned.summary ?? "", /versionId, or the tag of If-Match, must be current/);
  });

  test("the PATCH of an entity takes application/merge-patch+json and plain JSON, one schema for both", () => {
    const patch = documentOf().paths["/notes/{id}"].patch;
    assert.deepEqual(Object.keys(patch.requestBody?.content ?? {}), ["application/merge-patch+json", "application/json"]);
    assert.deepEqual(patch.requestBody?.content["application/merge-patch+json"].schema, { type: "object" });
  });

  test("a handler declares the media types of its answer and of its request body; the document gives exactly those", () => {
    const document = documentOf();
    const page = document.paths["/reports/page"];
    assert.deepEqual(page.get.responses["200"].content, { "text/html": { schema: { type: "string" } } });
    assert.equal(page.head.responses["200"].content, undefined, "a HEAD answer has no body");
    const upload = document.paths["/reports/import"].post;
    assert.deepEqual(Object.keys(upload.requestBody?.content ?? {}), ["text/csv", "application/x-ndjson"]);
    assert.deepEqual(Object.keys(upload.responses["200"].content ?? {}), ["application/json"]);
  });
});
