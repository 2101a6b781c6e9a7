export interface AccountAgreementsTable {
  account_id: number;
  eu_model: number;
  master_service_agreement: number;
  privacy_policy: number;
  updated: string;
}

export interface AgreementTables {
  account_agreements: AccountAgreementsTable;
}
