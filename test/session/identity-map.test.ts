import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IdentityMap } from "../../src/session/identity-map.js";

class Company {}
class Contact {}
class Country {}

describe("IdentityMap", () => {
  it("keeps one instance per class and key, whichever class came first", () => {
    const map = new IdentityMap();
    const company = new Company();
    const contact = new Contact();
    const country = new Country();
    assert.equal(map.get(Company, 1), undefined);
    map.set(Company, 1, company);
    map.set(Contact, 1, contact);
    map.set(Country, 1, country);
    assert.equal(map.get(Company, 1), company);
    assert.equal(map.get(Contact, 1), contact);
    assert.equal(map.get(Country, 1), country);
    assert.equal(map.get(Company, 2), undefined);
    assert.equal(map.get(Contact, 2), undefined);
    const replacement = new Contact();
    map.set(Contact, 1, replacement);
    assert.equal(map.get(Contact, 1), replacement);
  });

  it("forgets one key of the first or a later class, and everything on clear", () => {
    const map = new IdentityMap();
    map.set(Company, 1, new Company());
    map.set(Company, 2, new Company());
    map.set(Contact, 1, new Contact());
    map.delete(Company, 1);
    map.delete(Contact, 1);
    map.delete(Country, 1);
    assert.equal(map.get(Company, 1), undefined);
    assert.notEqual(map.get(Company, 2), undefined);
    assert.equal(map.get(Contact, 1), undefined);
    map.clear();
    assert.equal(map.get(Company, 2), undefined);
    // after clear, a new first class takes the place of the old one
    const contact = new Contact();
    map.set(Contact, 7, contact);
    map.set(Company, 7, new Company());
    assert.equal(map.get(Contact, 7), contact);
    assert.ok(map.get(Company, 7) instanceof Company);
  });

  it("holds a session's one instance without a map, replaces it, forgets it, and keeps it when a second comes", () => {
    const map = new IdentityMap();
    const first = new Company();
    map.set(Company, 1, first);
    assert.equal(map.get(Company, 1), first);
    assert.equal(map.get(Company, 2), undefined);
    assert.equal(map.get(Contact, 1), undefined);
    const replacement = new Company();
    map.set(Company, 1, replacement);
    assert.equal(map.get(Company, 1), replacement);
    map.delete(Contact, 1);
    map.delete(Company, 2);
    assert.equal(map.get(Company, 1), replacement);
    map.delete(Company, 1);
    assert.equal(map.get(Company, 1), undefined);
    const again = new Company();
    const contact = new Contact();
    map.set(Company, 1, again);
    map.set(Contact, 1, contact);
    assert.equal(map.get(Company, 1), again);
    assert.equal(map.get(Contact, 1), contact);
    const second = new Company();
    map.set(Company, 2, second);
    assert.equal(map.get(Company, 1), again);
    assert.equal(map.get(Company, 2), second);
  });
});
