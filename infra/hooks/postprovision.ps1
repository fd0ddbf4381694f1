# azd postprovision hook (Windows): prints the one-time database steps with this environment's names.
$server = if ($env:AZURE_SQL_SERVER_FQDN) { $env:AZURE_SQL_SERVER_FQDN } else { '<server>' }
$database = if ($env:AZURE_SQL_DATABASE_NAME) { $env:AZURE_SQL_DATABASE_NAME } else { 'platform' }
$identity = if ($env:AZURE_APP_IDENTITY_NAME) { $env:AZURE_APP_IDENTITY_NAME } else { '<identity>' }
Write-Host ""
Write-Host "One-time database steps, as a member of the SQL admin group (see infra/README.md, 'First deployment'):"
Write-Host "  1. sqlcmd -S $server -d $database --authentication-method ActiveDirectoryDefault -v AppIdentityName=$identity -i infra/sql/grant-app-identity.sql"
Write-Host "  2. `$env:APP_ENV='test'; `$env:SQL_CONNECTION_STRING='Server=tcp:$server,1433;Database=$database;Authentication=Active Directory Default;Encrypt=true'; npm run migrate"
Write-Host ""
