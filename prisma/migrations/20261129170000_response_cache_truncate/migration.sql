-- Written by hand: a TRUNCATE fires no INSERT, UPDATE or DELETE trigger, so emptying the catalogue
-- in psql (`TRUNCATE pets, categories CASCADE`) told no in-process response cache
-- (20261129120000_response_cache_notify), and every process kept serving the rows it removed until
-- its TTL. The same notification, for TRUNCATE.
CREATE TRIGGER "pets_response_cache_truncate"
AFTER TRUNCATE ON "pets"
FOR EACH STATEMENT EXECUTE FUNCTION "response_cache_notify"();

CREATE TRIGGER "categories_response_cache_truncate"
AFTER TRUNCATE ON "categories"
FOR EACH STATEMENT EXECUTE FUNCTION "response_cache_notify"();
