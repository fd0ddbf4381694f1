import { requireSupportedNode } from '../shared/lifecycle/node-version';

// Imported first by the host's entry points: stops an old Node.js before anything native loads.
requireSupportedNode();
