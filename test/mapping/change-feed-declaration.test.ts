import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ChangeFeed, Column, EntityMapping, Join, JoinKind, MappingError, PrimaryKey, Table, Type } from "tenon";
import { declaresChangeFeed } from "../../src/mapping/change-feed-decorator.js";

@Table("Fed")
@ChangeFeed()
class Fed {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

class FedSubclass extends Fed {}

@Table("Plain")
class Plain {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

// @ChangeFeed on a joined entity is a mapping error, found when the class is mapped.
@Table("Fed")
@Join(JoinKind.Inner, "Plain", "ID", "ID")
@ChangeFeed()
class FedJoin {
  @PrimaryKey @Column("ID", Type.int32) id = 0;
}

describe("declaresChangeFeed", () => {
  test("an entity decorated with @ChangeFeed declares it, and so does a class extending it", () => {
    assert.equal(declaresChangeFeed(Fed), true);
    assert.equal(declaresChangeFeed(FedSubclass), true);
  });

  test("an entity without @ChangeFeed and a class that is no entity declare none", () => {
    assert.equal(declaresChangeFeed(Plain), false);
    assert.equal(declaresChangeFeed(class NoEntity {}), false);
  });

  test("the declaration is read without mapping the class: its mapping error waits for its first use", () => {
    assert.equal(declaresChangeFeed(FedJoin), true);
    assert.throws(
      () => EntityMapping.of(FedJoin),
      (e: unknown) => e instanceof MappingError && /@ChangeFeed/.test(e.message),
    );
  });
});
