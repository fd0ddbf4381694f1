const { app } = require('@azure/functions');

// The tests read what the hooks saw from here.
const events = (globalThis.__localHostFixtureEvents ??= []);

// The process smoke test checks that console output never reaches the host's stdout.
const noisy = process.env.FIXTURE_CONSOLE_NOISE === 'true';
if (noisy) console.log('fixture: console.log while loading');

app.hook.appStart((context) => {
  context.hookData.started = true;
  events.push('appStart');
});

app.hook.appTerminate((context) => {
  events.push(context.hookData.started ? 'appTerminate after appStart' : 'appTerminate');
  if (noisy) console.info(`fixture: ${events.at(-1)}`);
});

app.hook.preInvocation((context) => {
  events.push(`pre ${context.invocationContext.functionName}`);
  if (context.invocationContext.functionName === 'hooked') {
    context.hookData.fromPre = 'pre';
    context.functionHandler = async () => ({ jsonBody: { by: 'preInvocation hook' } });
  }
});

app.hook.postInvocation((context) => {
  events.push(`post ${context.invocationContext.functionName}${context.error ? ' failed' : ''}`);
  if (context.invocationContext.functionName === 'hooked') {
    context.result = { ...context.result, headers: { 'x-post-hook': context.hookData.fromPre } };
  }
});
