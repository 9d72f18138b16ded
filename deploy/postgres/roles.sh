#!/bin/sh
# The gateway's PostgreSQL role: rows, never the schema (docs/deployment.md, "Least privilege").
# Run once by the postgres image on its first start (docker-entrypoint-initdb.d), as the owner
# (POSTGRES_USER), on POSTGRES_DB; the migrate job, also the owner, creates the tables later, and the
# default privileges below grant them to the role as they are created.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE petstore_app LOGIN PASSWORD '${PETSTORE_APP_PASSWORD}';
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE CREATE ON DATABASE "${POSTGRES_DB}" FROM PUBLIC;
GRANT CONNECT ON DATABASE "${POSTGRES_DB}" TO petstore_app;
GRANT USAGE ON SCHEMA public TO petstore_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO petstore_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO petstore_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO petstore_app;
-- Behind PgBouncer in transaction mode the gateway sends no startup parameters: the role's defaults
-- bound a statement on the server too, and give the planner setting of direct connections
-- (docs/postgres-topologies.md, "PgBouncer").
ALTER ROLE petstore_app SET statement_timeout = '15s';
ALTER ROLE petstore_app SET enable_memoize = off;
SQL
