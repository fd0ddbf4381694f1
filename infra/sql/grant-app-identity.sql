-- Makes the app's managed identity a user of the app's database, with data access but no DDL
-- (schema changes go through `npm run migrate`, run by an administrator). Run it once per
-- environment, after the first `azd provision`, connected to the app's database (not master) as a
-- member of the SQL administrators' Microsoft Entra group, for example with go-sqlcmd:
--
--   sqlcmd -S <AZURE_SQL_SERVER_FQDN> -d <AZURE_SQL_DATABASE_NAME> --authentication-method ActiveDirectoryDefault \
--     -v AppIdentityName=<AZURE_APP_IDENTITY_NAME> -i infra/sql/grant-app-identity.sql
--
-- or paste it into the portal's query editor with the name filled in. It can be run again safely.
IF NOT EXISTS (SELECT 1 FROM sys.database_principals WHERE name = N'$(AppIdentityName)')
    CREATE USER [$(AppIdentityName)] FROM EXTERNAL PROVIDER;
ALTER ROLE db_datareader ADD MEMBER [$(AppIdentityName)];
ALTER ROLE db_datawriter ADD MEMBER [$(AppIdentityName)];
GRANT EXECUTE TO [$(AppIdentityName)];
