export interface BetaEnrollmentsTable {
  account_id: number;
  beta_id: string;
  enrolled: string;
}

export interface BetaTables {
  beta_enrollments: BetaEnrollmentsTable;
}
