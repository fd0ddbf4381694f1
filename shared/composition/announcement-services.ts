import type { HttpRequest } from '@azure/functions';
import type { AppServices } from '../composition-root';
import type { AnnouncementDeps, AnnouncementResult } from '../announcement-workflow/announcement-deps';
import { toAnnouncementView } from '../announcements/announcement-view';
import type { EndpointResult } from '../http/http-pipeline';
import { resourceIdOf } from '../http/resource-id';

/** The announcement ports out of the services: the core ports and where publishing enqueues the fan-out. */
export function announcementDepsOf(services: Pick<AppServices, 'corePorts' | 'fanoutQueue'>): AnnouncementDeps {
  return { ...services.corePorts, fanoutQueue: services.fanoutQueue };
}

/**
 * The answer of a workflow step on the announcement of the request's `{id}`: 400 for an id that is
 * not one, the step's problem, or 200 with the announcement after the step.
 */
export async function answerWorkflowStep(
  request: HttpRequest,
  services: Pick<AppServices, 'corePorts' | 'fanoutQueue'>,
  step: (id: string, deps: AnnouncementDeps) => Promise<AnnouncementResult>,
): Promise<EndpointResult> {
  const path = resourceIdOf(request.params, 'an announcement');
  if (!path.ok) return path.problem;
  const result = await step(path.id, announcementDepsOf(services));
  if (!result.ok) return result.problem;
  return { status: 200, jsonBody: toAnnouncementView(result.announcement) };
}
