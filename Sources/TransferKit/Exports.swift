// TransferKit re-exports its value types so one import gives the whole API.
@_exported import TransferModel
