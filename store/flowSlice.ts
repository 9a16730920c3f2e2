import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** What an OAuth round trip must remember: where it started, what it creates, for which source. */
export interface FlowState {
  storedFrom: string | null;
  storedType: string | null;
  sourceKey: string | null;
}

const initialState: FlowState = { storedFrom: null, storedType: null, sourceKey: null };

const flowSlice = createSlice({
  name: 'flow',
  initialState,
  reducers: {
    flowStarted: (_state, { payload }: PayloadAction<FlowState>) => payload,
    flowCleared: () => initialState,
  },
  selectors: {
    selectFlow: (state) => state,
  },
});

export const { flowStarted, flowCleared } = flowSlice.actions;
export const { selectFlow } = flowSlice.selectors;
export default flowSlice;
