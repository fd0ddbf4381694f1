const { app } = require('@azure/functions');

app.timer('tick', { schedule: '0 */5 * * * *', runOnStartup: true, handler: async () => undefined });

app.storageQueue('fan-out', { queueName: 'notifications', connection: 'AzureWebJobsStorage', handler: async () => undefined });
