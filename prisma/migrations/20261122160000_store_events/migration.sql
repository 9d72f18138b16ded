-- Written by hand (Prisma's schema language has no triggers): store events for GraphQL subscriptions
-- (README, "Subscriptions"). The database publishes them itself, with pg_notify inside the writing
-- transaction, so an event is delivered when, and only if, its change commits, in commit order, to
-- every process that LISTENs on the channel, whichever code path (service, SQL function, a person
-- in psql) made the change. Payloads stay small (a few hundred bytes; the limit is 8,000).

-- Order events: the order row as it was after the change (for a cancellation, the deleted row).
CREATE FUNCTION "store_events_order"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o "orders";
    kind text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        o := NEW; kind := 'placed';
    ELSIF TG_OP = 'UPDATE' THEN
        IF NOT (NEW."complete" AND NOT OLD."complete") THEN RETURN NULL; END IF;
        o := NEW; kind := 'completed';
    ELSE
        -- Only open orders are cancelled (deleted); nothing else deletes orders.
        IF OLD."complete" THEN RETURN NULL; END IF;
        o := OLD; kind := 'cancelled';
    END IF;
    PERFORM pg_notify('store_events', json_build_object(
        'type', 'order', 'kind', kind,
        'order', json_build_object(
            'id', o."id"::text, 'petId', o."pet_id"::text, 'quantity', o."quantity",
            'shipDate', o."ship_date", 'complete', o."complete")
    )::text);
    RETURN NULL;
END $$;

CREATE TRIGGER "orders_store_events"
AFTER INSERT OR UPDATE OF "complete" OR DELETE ON "orders"
FOR EACH ROW EXECUTE FUNCTION "store_events_order"();

-- Stock events: a pet's stock and status as the transaction leaves them. Deferred to commit time, so
-- the intermediate states of one transaction (stock taken, then the status settled) are never
-- published; two changes of one pet in one transaction send the same payload, which PostgreSQL
-- delivers once.
CREATE FUNCTION "store_events_stock"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    -- The pet's id column is the trigger's argument ("id" on pets, "pet_id" on inventory_items).
    pet bigint := (to_jsonb(NEW) ->> TG_ARGV[0])::bigint;
    payload text;
BEGIN
    SELECT json_build_object('type', 'stock', 'petId', i."pet_id"::text, 'quantity', i."quantity", 'status', p."status")::text
    INTO payload
    FROM "inventory_items" i JOIN "pets" p ON p."id" = i."pet_id"
    WHERE i."pet_id" = pet;
    IF payload IS NOT NULL THEN PERFORM pg_notify('store_events', payload); END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "inventory_items_store_events_insert"
AFTER INSERT ON "inventory_items" DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION "store_events_stock"('pet_id');

CREATE CONSTRAINT TRIGGER "inventory_items_store_events_update"
AFTER UPDATE OF "quantity" ON "inventory_items" DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (OLD."quantity" IS DISTINCT FROM NEW."quantity")
EXECUTE FUNCTION "store_events_stock"('pet_id');

CREATE CONSTRAINT TRIGGER "pets_store_events_status"
AFTER UPDATE OF "status" ON "pets" DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
EXECUTE FUNCTION "store_events_stock"('id');
