-- Written by hand (Prisma's schema language has no triggers): a change to the catalogue's own rows
-- (pets, categories) tells every process's in-process response cache (docs/caching.md) on the
-- "response_cache" channel, with pg_notify inside the writing transaction, as store events are told
-- (20261122160000_store_events): delivered when, and only if, the change commits, whichever path
-- made it (the gateway, a SQL function, a person in psql). The writing process used to send it
-- itself after the commit, so a connection lost between the two left the other processes serving
-- what the write changed until their TTL. One notification per statement; PostgreSQL delivers one
-- per transaction for the same payload.
CREATE FUNCTION "response_cache_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('response_cache', '');
    RETURN NULL;
END $$;

CREATE TRIGGER "pets_response_cache"
AFTER INSERT OR UPDATE OR DELETE ON "pets"
FOR EACH STATEMENT EXECUTE FUNCTION "response_cache_notify"();

CREATE TRIGGER "categories_response_cache"
AFTER INSERT OR UPDATE OR DELETE ON "categories"
FOR EACH STATEMENT EXECUTE FUNCTION "response_cache_notify"();
