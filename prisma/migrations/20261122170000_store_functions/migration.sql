-- Written by hand (issue 15, "Writes in one round trip"): the store's writes as SQL functions, so that
-- a write is ONE statement from the gateway, not an interactive transaction of several round trips
-- holding the pet's row lock across them. A function runs in its statement's transaction: it
-- commits whole or not at all, and AFTER triggers on the tables it writes fire as for any write.
-- The services (src/modules/*/…service.ts) call these through Prisma ($queryRaw) and keep their
-- validation; the lifecycle rules live here and are documented in src/modules/pets/pet-lifecycle.ts.
--
-- Refusals (the client's mistake, nothing changed) are returned as a row (refusal = SQLSTATE of
-- class PS, message), not raised, after the block that raised them has been rolled back: PS400
-- VALIDATION_FAILED, PS404 NOT_FOUND, PS409 CONFLICT, PS410 OUT_OF_STOCK, PS422 INVALID_TRANSITION.
-- Any other error (a broken constraint, a failing trigger) is raised as it is and undoes everything.

-- The automatic transitions after a change of stock or open orders (the pet must be locked):
-- stock > 0 is available; no stock with open orders is pending; a pending pet left with neither is
-- sold; otherwise the status stays. Returns the pet's state after them.
CREATE FUNCTION "store_settle"(p_pet_id BIGINT)
RETURNS TABLE ("status" "PetStatus", "stock" INT, "openOrders" INT)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_status "PetStatus";
    v_stock INT;
    v_open INT;
    v_next "PetStatus";
BEGIN
    SELECT p."status", i."quantity",
           (SELECT count(*) FROM "orders" o WHERE o."pet_id" = p."id" AND NOT o."complete")::int
      INTO v_status, v_stock, v_open
      FROM "pets" p JOIN "inventory_items" i ON i."pet_id" = p."id"
     WHERE p."id" = p_pet_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'pet % vanished while locked', p_pet_id;
    END IF;
    v_next := CASE
        WHEN v_stock > 0 THEN 'available'::"PetStatus"
        WHEN v_open > 0 THEN 'pending'::"PetStatus"
        WHEN v_status = 'pending' THEN 'sold'::"PetStatus"
        ELSE v_status
    END;
    IF v_next <> v_status THEN
        UPDATE "pets" SET "status" = v_next, "updated_at" = now() WHERE "id" = p_pet_id;
    END IF;
    RETURN QUERY SELECT v_next, v_stock, v_open;
END
$fn$;

-- placeOrder: claims the idempotency key (when given), locks the pet, takes the stock by a
-- conditional UPDATE (no oversell, however many run at once), opens the order, records it on the
-- key and settles the pet's status. A key already used with the same request returns its order.
CREATE FUNCTION "store_place_order"(
    p_pet_id BIGINT, p_quantity INT, p_ship_date TIMESTAMPTZ,
    p_key TEXT, p_fingerprint TEXT, p_ttl_seconds DOUBLE PRECISION
)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_order_id BIGINT;
    v_claimed TEXT;
    v_print TEXT;
    v_existing BIGINT;
    v_status "PetStatus";
    v_stock INT;
BEGIN
    BEGIN
        IF p_key IS NOT NULL THEN
            INSERT INTO "idempotency_keys" AS k ("key", "fingerprint", "created_at", "expires_at")
            VALUES (p_key, p_fingerprint, now(), now() + make_interval(secs => p_ttl_seconds))
            ON CONFLICT ("key") DO UPDATE
                SET "fingerprint" = EXCLUDED."fingerprint", "order_id" = NULL,
                    "created_at" = EXCLUDED."created_at", "expires_at" = EXCLUDED."expires_at"
                WHERE k."expires_at" <= now()
            RETURNING k."key" INTO v_claimed;
            IF v_claimed IS NULL THEN
                SELECT k."fingerprint", k."order_id" INTO v_print, v_existing FROM "idempotency_keys" k WHERE k."key" = p_key;
                IF v_print IS DISTINCT FROM p_fingerprint THEN
                    RAISE EXCEPTION 'Idempotency-Key: this key was already used with a different request' USING ERRCODE = 'PS409';
                END IF;
                IF v_existing IS NULL THEN
                    RAISE EXCEPTION 'Idempotency-Key: the order placed with this key has been cancelled' USING ERRCODE = 'PS409';
                END IF;
                v_order_id := v_existing;
            END IF;
        END IF;
        IF v_order_id IS NULL THEN
            PERFORM 1 FROM "pets" p WHERE p."id" = p_pet_id FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'petId: pet % does not exist', p_pet_id USING ERRCODE = 'PS400';
            END IF;
            -- A statement of its own after the lock: it sees everything committed before the lock was granted.
            SELECT p."status", i."quantity" INTO v_status, v_stock
              FROM "pets" p JOIN "inventory_items" i ON i."pet_id" = p."id" WHERE p."id" = p_pet_id;
            IF v_status <> 'available' THEN
                RAISE EXCEPTION 'Pet % is %: none left to order', p_pet_id, v_status USING ERRCODE = 'PS410';
            END IF;
            UPDATE "inventory_items" i SET "quantity" = i."quantity" - p_quantity, "updated_at" = now()
             WHERE i."pet_id" = p_pet_id AND i."quantity" >= p_quantity;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'Pet % has % in stock; % ordered', p_pet_id, v_stock, p_quantity USING ERRCODE = 'PS410';
            END IF;
            INSERT INTO "orders" AS o ("pet_id", "quantity", "ship_date", "complete", "updated_at")
            VALUES (p_pet_id, p_quantity, p_ship_date, false, now())
            RETURNING o."id" INTO v_order_id;
            IF p_key IS NOT NULL THEN
                UPDATE "idempotency_keys" k SET "order_id" = v_order_id WHERE k."key" = p_key;
            END IF;
            PERFORM "store_settle"(p_pet_id);
        END IF;
    EXCEPTION WHEN SQLSTATE 'PS400' OR SQLSTATE 'PS409' OR SQLSTATE 'PS410' THEN
        RETURN QUERY SELECT SQLSTATE::text, SQLERRM::text, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END;
    RETURN QUERY SELECT NULL::text, NULL::text, o."id", o."pet_id", o."quantity", o."ship_date", o."complete"
                   FROM "orders" o WHERE o."id" = v_order_id;
END
$fn$;

-- completeOrder / cancelOrder: find the open order, lock its pet (pet before order, the order every
-- store write takes its locks in), then change the order by a conditional statement (`AND NOT
-- complete`), so a concurrent complete and cancel of one order cannot both succeed; the loser is
-- told why (NOT_FOUND: cancelled meanwhile; INVALID_TRANSITION: completed meanwhile). Cancel puts
-- the quantity back in stock. Both settle the pet's status. Return the order (cancel: as it was).
CREATE FUNCTION "store_finish_order"(p_order_id BIGINT, p_action TEXT)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "id" BIGINT, "petId" BIGINT, "quantity" INT, "shipDate" TIMESTAMPTZ, "complete" BOOLEAN)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_pet BIGINT;
    v_complete BOOLEAN;
    v_order "orders"%ROWTYPE;
    v_done TEXT := CASE WHEN p_action = 'complete'
        THEN format('Order %s is already complete', p_order_id)
        ELSE format('Order %s is complete; a complete order cannot be cancelled', p_order_id) END;
BEGIN
    SELECT o."pet_id", o."complete" INTO v_pet, v_complete FROM "orders" o WHERE o."id" = p_order_id;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'PS404'::text, format('Order %s not found', p_order_id), NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    IF v_complete THEN
        RETURN QUERY SELECT 'PS422'::text, v_done, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        RETURN;
    END IF;
    -- An open order always has its pet (a pet with open orders cannot be deleted).
    IF v_pet IS NOT NULL THEN
        PERFORM 1 FROM "pets" p WHERE p."id" = v_pet FOR UPDATE;
    END IF;
    IF p_action = 'complete' THEN
        UPDATE "orders" o SET "complete" = true, "ship_date" = COALESCE(o."ship_date", now()), "updated_at" = now()
         WHERE o."id" = p_order_id AND NOT o."complete" RETURNING o.* INTO v_order;
    ELSE
        DELETE FROM "orders" o WHERE o."id" = p_order_id AND NOT o."complete" RETURNING o.* INTO v_order;
    END IF;
    IF v_order."id" IS NULL THEN
        -- Someone else got there first: say why. Nothing was written.
        IF EXISTS (SELECT 1 FROM "orders" o WHERE o."id" = p_order_id) THEN
            RETURN QUERY SELECT 'PS422'::text, v_done, NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        ELSE
            RETURN QUERY SELECT 'PS404'::text, format('Order %s not found', p_order_id), NULL::BIGINT, NULL::BIGINT, NULL::INT, NULL::TIMESTAMPTZ, NULL::BOOLEAN;
        END IF;
        RETURN;
    END IF;
    IF v_pet IS NOT NULL THEN
        IF p_action = 'cancel' THEN
            UPDATE "inventory_items" i SET "quantity" = i."quantity" + v_order."quantity", "updated_at" = now() WHERE i."pet_id" = v_pet;
        END IF;
        PERFORM "store_settle"(v_pet);
    END IF;
    RETURN QUERY SELECT NULL::text, NULL::text, v_order."id", v_order."pet_id", v_order."quantity", v_order."ship_date", v_order."complete";
END
$fn$;

-- updateInventory: sets a pet's stock under its row lock and settles its status (above 0 makes it
-- available; 0 with open orders pending). Returns the stock and the status after that.
CREATE FUNCTION "store_set_stock"(p_pet_id BIGINT, p_quantity INT)
RETURNS TABLE ("refusal" TEXT, "message" TEXT, "petId" BIGINT, "quantity" INT, "status" "PetStatus")
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    v_state RECORD;
BEGIN
    PERFORM 1 FROM "pets" p WHERE p."id" = p_pet_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'PS404'::text, format('Pet %s not found', p_pet_id), NULL::BIGINT, NULL::INT, NULL::"PetStatus";
        RETURN;
    END IF;
    UPDATE "inventory_items" i SET "quantity" = p_quantity, "updated_at" = now() WHERE i."pet_id" = p_pet_id;
    SELECT * INTO v_state FROM "store_settle"(p_pet_id);
    RETURN QUERY SELECT NULL::text, NULL::text, p_pet_id, v_state."stock", v_state."status";
END
$fn$;
