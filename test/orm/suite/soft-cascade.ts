import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Column,
  Context,
  DeletedAt,
  DeletedBy,
  DetailColumn,
  LazyList,
  PrimaryKey,
  Relation,
  Sequence,
  Table,
  Type,
  UpdatedAt,
  UpdatedBy,
  VersionColumn,
} from "tenon";
import { type EngineHarness, sequenceDdl, type TestDatabase } from "../harness.js";
import { lower } from "./crud.js";

/** A document of a folder: soft delete of its own, so a folder's soft delete cascades softly to it. */
@Table("Documents")
@Sequence("DocumentsID")
export class FolderDocument {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("FolderID", Type.int32) folderId = 0;
  @Column("Title", Type.string) title = "";
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string.orNull) updatedBy: string | null = null;
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string.orNull) deletedBy: string | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A sticker on a folder: no soft delete, so a folder's cascade deletes it for real. */
@Table("Stickers")
@Sequence("StickersID")
export class Sticker {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("FolderID", Type.int32) folderId = 0;
  @Column("Label", Type.string) label = "";
}

/** A folder: soft delete, two cascading relations, one to children with soft delete and one without. */
@Table("Folders")
@Sequence("FoldersID")
@Relation("Documents", "FolderID", true)
@Relation("Stickers", "FolderID", true)
export class Folder {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
  @Column("Name", Type.string) name = "";
  @DetailColumn("ID", "FolderID", () => FolderDocument) documents = new LazyList<FolderDocument>();
  @UpdatedAt @Column("UpdatedAt", Type.date.orNull) updatedAt: Date | null = null;
  @UpdatedBy @Column("UpdatedBy", Type.string.orNull) updatedBy: string | null = null;
  @DeletedAt @Column("DeletedAt", Type.date.orNull) deletedAt: Date | null = null;
  @DeletedBy @Column("DeletedBy", Type.string.orNull) deletedBy: string | null = null;
  @VersionColumn @Column("VersionID", Type.int32) versionId = 0;
}

/** A cascading @Relation when the parent is deleted softly, and the undelete that follows. */
export function softCascadeSuite(harness: EngineHarness): void {
  describe(`${harness.name}: a soft delete cascades softly`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await harness.open();
      const t = harness.types;
      const audit = `UpdatedAt ${t.timestamp}, UpdatedBy ${t.text}, DeletedAt ${t.timestamp}, DeletedBy ${t.text}, VersionID ${t.int32} NOT NULL`;
      await db.exec(`CREATE TABLE Folders (ID ${t.int32} NOT NULL PRIMARY KEY, Name ${t.text} NOT NULL, ${audit})`);
      await db.exec(
        `CREATE TABLE Documents (ID ${t.int32} NOT NULL PRIMARY KEY, FolderID ${t.int32} NOT NULL, Title ${t.text} NOT NULL, ${audit})`,
      );
      await db.exec(`CREATE TABLE Stickers (ID ${t.int32} NOT NULL PRIMARY KEY, FolderID ${t.int32} NOT NULL, Label ${t.text} NOT NULL)`);
      if (harness.hasSequences) for (const name of ["FoldersID", "DocumentsID", "StickersID"]) await db.exec(sequenceDdl(harness, name));
    });
    after(async () => db.close());

    async function folderWith(name: string, documents: string[], stickers: string[]): Promise<Folder> {
      await using context = new Context(db.database);
      const folder = await context.createEntity(Folder);
      folder.name = name;
      await context.insert(folder);
      for (const title of documents) await context.insert(Object.assign(new FolderDocument(), { folderId: folder.id, title }));
      for (const label of stickers) await context.insert(Object.assign(new Sticker(), { folderId: folder.id, label }));
      return folder;
    }
    const documents = async (folderId: number): Promise<Record<string, unknown>[]> =>
      (await db.rows(`SELECT * FROM Documents WHERE FolderID = ${folderId} ORDER BY ID`)).map(lower);
    const stickers = async (folderId: number): Promise<number> =>
      (await db.rows(`SELECT ID FROM Stickers WHERE FolderID = ${folderId}`)).length;

    it("deleting a folder softly deletes its documents softly with its time and user, and its stickers for real", async () => {
      const folder = await folderWith("Taxes", ["2024", "2025"], ["red"]);
      await using context = new Context(db.database);
      context.onGetCurrentUser = () => "archivist";
      await context.delete(await context.get(Folder, folder.id));
      const [stored] = (await db.rows(`SELECT * FROM Folders WHERE ID = ${folder.id}`)).map(lower);
      const children = await documents(folder.id);
      assert.equal(children.length, 2, "the documents are kept as rows");
      for (const child of children) {
        assert.equal(String(child.deletedat), String(stored.deletedat), "with the folder's deletion time");
        assert.equal(child.deletedby, "archivist");
        assert.equal(Number(child.versionid), 1);
      }
      assert.equal(await stickers(folder.id), 0, "a child without soft delete is deleted for real (docs/reliability.md)");
      assert.equal(await context.tryGet(FolderDocument, Number(children[0].id)), null, "a softly deleted child reads as absent");
    });

    it("an undelete brings back the folder and the documents deleted with it, not one deleted before on its own", async () => {
      const folder = await folderWith("Photos", ["summer", "winter", "old"], ["blue"]);
      await using context = new Context(db.database);
      const old = (await documents(folder.id)).find((d) => d.title === "old");
      await context.delete(await context.get(FolderDocument, Number(old?.id)));
      await new Promise((resolve) => setTimeout(resolve, 5));
      await context.delete(await context.get(Folder, folder.id));
      await using restorer = new Context(db.database);
      restorer.onGetCurrentUser = () => "restorer";
      await restorer.undelete(await restorer.get(Folder, folder.id, { includeDeleted: true }));
      const children = await documents(folder.id);
      const state = Object.fromEntries(children.map((child) => [child.title, child.deletedat === null]));
      assert.deepEqual(state, { summer: true, winter: true, old: false });
      const summer = children.find((child) => child.title === "summer");
      assert.equal(summer?.updatedby, "restorer");
      assert.equal(Number(summer?.versionid), 2);
      const back = await restorer.get(Folder, folder.id);
      assert.deepEqual((await back.documents.load()).map((d) => d.title).sort(), ["summer", "winter"]);
      assert.equal(await stickers(folder.id), 0, "a child deleted for real does not come back (docs/reliability.md)");
    });
  });
}
