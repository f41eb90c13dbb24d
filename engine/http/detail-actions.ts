import type { Request, Response } from 'express';
import Ajv, { type ValidateFunction } from 'ajv';
import type { DetailActionUse, Registry, ResolvedModel } from '../definitions/registry-types';
import { DefinitionError } from '../definitions/definition-error';
import type { FaultCollector } from '../definitions/fault-collector';
import { schemaFaults } from '../definitions/schema-faults';
import type { JsonSchema } from '../validation/request-schema';
import type { CallContext } from './api-context';
import { choicesAction } from './actions/choices';
import { renderTemplateAction } from '../domain/config-templates/render-template-action';
import { renderConfigAction } from '../domain/config-templates/render-config';
import { availableIpsAction } from '../domain/allocation/available-ips';
import { availablePrefixesAction } from '../domain/allocation/available-prefixes';
import { availableNumbersAction } from '../domain/allocation/available-numbers';
import { pathsAction, traceAction } from '../domain/cables/cable-trace';
import { rackElevationAction } from '../domain/elevation/rack-elevation';

/**
 * An endpoint under each object's detail path (/api/<app>/<path>/<id>/<segment>/), named by a definition's
 * "detail_actions": NetBox's available-ips, trace, paths, elevation, render-config... Each is written once
 * for every model that names it; what it needs to know about a model (which field holds the network, which
 * type it creates) comes from the definition's options, never from the model's name.
 */
export interface DetailAction {
  /** The methods it answers (HEAD comes with GET, OPTIONS always). */
  methods: readonly string[];
  /** JSON Schema of its options; checked for every definition that names the action, at startup. */
  options: JsonSchema;
  /**
   * What the schema cannot check: fields the options name exist on the model with the right kinds, types
   * they name exist. A problem is reported at its pointer under the action's options.
   */
  check?(registry: Registry, model: ResolvedModel, options: Record<string, unknown>): { pointer: string; message: string } | null;
  /**
   * Serves a request. The object id is a positive integer; whether the object exists and the caller may
   * see it is the action's to check (objectScope in model-routes.ts helps), as are the permissions its work needs.
   */
  handle(ctx: CallContext, req: Request, res: Response, use: DetailActionUse & { model: ResolvedModel; id: number; segment: string }): Promise<void>;
  /** Its OpenAPI path item (operationIds start with `operationId`) and the component schemas it refers to. */
  doc(model: ResolvedModel, use: DetailActionUse & { segment: string; operationId: string }): { pathItem: Record<string, unknown>; schemas: Record<string, JsonSchema> };
}

/** Every named detail action (each in engine/domain/ and engine/http/actions/). */
const ACTIONS: Record<string, DetailAction> = {
  choices: choicesAction,
  render_template: renderTemplateAction,
  render_config: renderConfigAction,
  available_ips: availableIpsAction,
  available_prefixes: availablePrefixesAction,
  available_numbers: availableNumbersAction,
  trace_path: traceAction,
  paths_through: pathsAction,
  rack_elevation: rackElevationAction,
};

export function detailAction(name: string): DetailAction | undefined {
  return Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
}

const validators = new Map<string, ValidateFunction>();

function optionsValidator(name: string, action: DetailAction): ValidateFunction {
  let v = validators.get(name);
  if (!v) validators.set(name, (v = new Ajv({ allErrors: true, strict: false }).compile(action.options as object)));
  return v;
}

/** Every detail action a definition names exists and accepts the options given; else the definition is refused. */
export function checkDetailActions(registry: Registry, faults: FaultCollector): void {
  for (const model of registry.models.values()) {
    for (const [segment, use] of model.detailActions) faults.attempt(model.file, `/detail_actions/${segment}`, () => {
      const at = typeof model.def.detail_actions?.[segment] === 'string' ? `/detail_actions/${segment}` : `/detail_actions/${segment}/options`;
      const action = detailAction(use.action);
      if (!action) throw new DefinitionError(model.file, typeof model.def.detail_actions?.[segment] === 'string' ? at : `/detail_actions/${segment}/action`, `unknown detail action "${use.action}"`);
      const validate = optionsValidator(use.action, action);
      if (!validate(use.options)) {
        for (const f of schemaFaults(model.file, validate.errors ?? [], use.options, at)) faults.add(f.file, f.pointer, f.reason);
        return;
      }
      const problem = action.check?.(registry, model, use.options);
      if (problem) throw new DefinitionError(model.file, `${at}${problem.pointer}`, problem.message);
    });
  }
}
