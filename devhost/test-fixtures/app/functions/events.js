// An Event Grid function for the local host's webhook tests, registered as the real app registers one.
const { app } = require('@azure/functions');

// The tests read what each invocation received from here.
const received = (globalThis.__localHostFixtureEventGrid ??= []);

app.eventGrid('communication-events', {
  handler: async (event, context) => {
    received.push({
      event,
      functionName: context.functionName,
      invocationId: context.invocationId,
      traceParent: context.traceContext.traceParent,
      triggerMetadata: context.triggerMetadata,
      triggerType: context.options.trigger.type,
    });
    if (event.subject === 'fail') throw new Error('fixture handler failed on purpose');
  },
});
