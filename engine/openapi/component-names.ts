import type { ResolvedModel } from '../definitions/registry-types';
import { representationName } from './representation-schema';

/** A reference to a schema in the document's components. */
export const schemaRef = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): { $ref: string } => ({ $ref: `#/components/responses/${name}` });

/** The component names of one model's schemas, in drf-spectacular's style (NetBox's schema generator). */
export interface ModelSchemaNames {
  full: string;
  brief: string;
  list: string;
  briefList: string;
  create: string;
  partial: string;
  bulkUpdate: string;
  bulkPartialUpdate: string;
}

export function modelSchemaNames(model: ResolvedModel): ModelSchemaNames {
  const full = representationName(model, 'full');
  const brief = representationName(model, 'brief');
  return {
    full,
    brief,
    list: `Paginated${full}List`,
    briefList: `Paginated${brief}List`,
    create: `Writable${full}Request`,
    partial: `PatchedWritable${full}Request`,
    bulkUpdate: `${full}BulkUpdateRequest`,
    bulkPartialUpdate: `${full}BulkPartialUpdateRequest`,
  };
}

/** The operationId prefix of a model's endpoints: `<app>_<path>` with hyphens as underscores (dcim_sites, ipam_ip_addresses). */
export function operationPrefix(model: ResolvedModel): string {
  return `${model.app}_${model.path}`.replace(/[^A-Za-z0-9_]/g, '_');
}

/** A model's list path and detail path as the engine routes them. */
export function modelPaths(model: ResolvedModel): { list: string; detail: string } {
  const list = `/api/${model.app}/${model.path}/`;
  return { list, detail: `${list}{id}/` };
}
